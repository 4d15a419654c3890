/* Dropping every capability after Landlock is in place (SPEC 5, 7). */
#ifndef LAUNCHER_CAPABILITIES_H
#define LAUNCHER_CAPABILITIES_H

/* Returns 0, or -errno (fatal: the command would keep privileges the
 * sandbox is meant to take away). */
int drop_capabilities(void);

#endif
