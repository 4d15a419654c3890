/* SPDX-License-Identifier: MIT */
/* Internal seams of the local provider, for its unit tests. */
#ifndef CONFINE_LOCAL_PROVIDER_H
#define CONFINE_LOCAL_PROVIDER_H

#include "local/ladder.h"

/* confine_local_provider_new() with the ladder's hooks replaced by `hooks`
 * (copied; NULL: the real probes of this host). */
int cf_local_provider_new_with_hooks(const confine_local_config *config,
                                     const cf_ladder_hooks *hooks, confine_provider **ret,
                                     confine_error *err) CONFINE_HIDDEN;

#endif
