/* SPDX-License-Identifier: MIT */
/* `confine stage`: diff, apply, discard a staged run's changes (SPEC 21). */
#ifndef CONFINE_CLI_STAGE_H
#define CONFINE_CLI_STAGE_H

/* argv[0] is the verb (diff, apply, discard); returns the exit status. */
int cli_stage_main(int argc, char **argv);

#endif
