/* SPDX-License-Identifier: MIT */
/* What the CLI's includers of the table of options (src/common/options.def)
 * share: the values of its commands column, as bits of cli_command. */
#ifndef CONFINE_CLI_OPTION_ROWS_H
#define CONFINE_CLI_OPTION_ROWS_H

#include "args.h"
#include "host-pattern.h"
#include "launcher-args.h"

#define CMD(c) (1u << CLI_COMMAND_##c)
#define ON_POLICY (CMD(RUN) | CMD(BASH) | CMD(WRAP) | CMD(FS) | CMD(EXPORT))
#define ON_CONFINED (CMD(RUN) | CMD(BASH) | CMD(WRAP))
#define ON_RUN (CMD(RUN) | CMD(BASH))
#define ON_PROVIDER (CMD(RUN) | CMD(BASH) | CMD(WRAP) | CMD(PROBE))
#define ON_NONE 0u

/* `confine options [--json]`: the table, as JSON (the bindings read a copy
 * of it) or one line per row; returns the exit status. */
int cli_options_print(bool json);

#endif
