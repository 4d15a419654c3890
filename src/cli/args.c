/* SPDX-License-Identifier: MIT */
/* The confine command line: subcommands, options, help texts. Parsing only;
 * main.c acts on the result. getopt(3) is not used: it keeps global state,
 * permutes arguments and prints its own messages, and the `--` that ends
 * confine's options must stay where the user put it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "export/export.h"

typedef enum option_id {
	OPT_HELP,
	OPT_MODE,
	OPT_WORKSPACE,
	OPT_RUNNER,
	OPT_CONFIG,
	OPT_JSON,
	OPT_TIMEOUT,
	OPT_COMMAND,
	/* the policy options (issue 16) */
	OPT_WRITABLE,
	OPT_PROTECT,
	OPT_NO_DEFAULT_PROTECTIONS,
	OPT_DENY_READ,
	OPT_NETWORK,
	OPT_ALLOW_UNIX_SOCKET,
	OPT_ALLOW_HOST,
	OPT_DENY_HOST,
	OPT_ALLOW_LOCAL_NETWORK,
	OPT_ENV_INHERIT,
	OPT_ENV_INCLUDE,
	OPT_ENV_EXCLUDE,
	OPT_ENV_SET,
	OPT_NO_DEFAULT_ENV_EXCLUDES,
	OPT_REQUIRE_FULL,
	OPT_MAX_BYTES,
	OPT_BUNDLE,
	OPT_RUNTIME,
	OPT_STAGE,
	OPT_LIMIT, /* every --max-* of the library's limit table */
} option_id;

typedef struct option_spec {
	option_id id;
	char short_name;        /* 0: none */
	const char *long_name;  /* NULL: none */
	const char *value_name; /* NULL: takes no value; else as the help says it */
} option_spec;

static const option_spec option_table[] = {
	{OPT_HELP, 'h', "help", NULL},
	{OPT_MODE, 'm', "mode", "MODE"},
	{OPT_WORKSPACE, 'w', "workspace", "DIR"},
	{OPT_RUNNER, 0, "runner", "NAME"},
	{OPT_CONFIG, 0, "config", "FILE"},
	{OPT_JSON, 0, "json", NULL},
	{OPT_TIMEOUT, 0, "timeout", "MS"},
	{OPT_COMMAND, 'c', NULL, "COMMAND"},
	{OPT_WRITABLE, 0, "writable", "DIR"},
	{OPT_PROTECT, 0, "protect", "PATH"},
	{OPT_NO_DEFAULT_PROTECTIONS, 0, "no-default-protections", NULL},
	{OPT_DENY_READ, 0, "deny-read", "PATH"},
	{OPT_NETWORK, 0, "network", "on|off"},
	{OPT_ALLOW_UNIX_SOCKET, 0, "allow-unix-socket", "PATH"},
	{OPT_ALLOW_HOST, 0, "allow-host", "HOST"},
	{OPT_DENY_HOST, 0, "deny-host", "HOST"},
	{OPT_ALLOW_LOCAL_NETWORK, 0, "allow-local-network", NULL},
	{OPT_ENV_INHERIT, 0, "env-inherit", "all|none"},
	{OPT_ENV_INCLUDE, 0, "env-include", "PAT"},
	{OPT_ENV_EXCLUDE, 0, "env-exclude", "PAT"},
	{OPT_ENV_SET, 0, "env-set", "NAME=VALUE"},
	{OPT_NO_DEFAULT_ENV_EXCLUDES, 0, "no-default-env-excludes", NULL},
	{OPT_REQUIRE_FULL, 0, "require-full", NULL},
	{OPT_MAX_BYTES, 0, "max-bytes", "N"},
	{OPT_BUNDLE, 0, "bundle", "DIR"},
	{OPT_RUNTIME, 0, "runtime", "runc|runsc"},
	{OPT_STAGE, 0, "stage", "DIR"},
};

/* The limits' flags are the library's table (confine_limit_flag): one spec
 * for them all; apply_option looks the limit up by the flag shown. */
static const option_spec limit_option = {OPT_LIMIT, 0, NULL, "VALUE"};

/* Which options each subcommand accepts (SPEC 10's synopsis). */
static bool command_accepts(cli_command command, option_id id) {
	switch (id) {
	case OPT_HELP:
		return true;
	case OPT_RUNNER:
		return command != CLI_COMMAND_NONE && command != CLI_COMMAND_FS &&
		       command != CLI_COMMAND_EXPORT;
	case OPT_CONFIG:
		return command != CLI_COMMAND_NONE;
	case OPT_BUNDLE:
	case OPT_RUNTIME:
		return command == CLI_COMMAND_EXPORT;
	case OPT_MODE:
	case OPT_WORKSPACE:
	case OPT_WRITABLE:
	case OPT_PROTECT:
	case OPT_NO_DEFAULT_PROTECTIONS:
	case OPT_DENY_READ:
	case OPT_NETWORK:
	case OPT_ALLOW_UNIX_SOCKET:
	case OPT_ALLOW_HOST:
	case OPT_DENY_HOST:
	case OPT_ALLOW_LOCAL_NETWORK:
	case OPT_ENV_INHERIT:
	case OPT_ENV_INCLUDE:
	case OPT_ENV_EXCLUDE:
	case OPT_ENV_SET:
	case OPT_NO_DEFAULT_ENV_EXCLUDES:
	case OPT_REQUIRE_FULL:
		return command == CLI_COMMAND_RUN || command == CLI_COMMAND_BASH ||
		       command == CLI_COMMAND_WRAP || command == CLI_COMMAND_FS ||
		       command == CLI_COMMAND_EXPORT;
	case OPT_JSON:
		return command == CLI_COMMAND_RUN || command == CLI_COMMAND_BASH ||
		       command == CLI_COMMAND_PROBE || command == CLI_COMMAND_FS ||
		       command == CLI_COMMAND_EXPORT;
	case OPT_MAX_BYTES:
		return command == CLI_COMMAND_FS;
	case OPT_LIMIT:
		return command == CLI_COMMAND_RUN || command == CLI_COMMAND_BASH ||
		       command == CLI_COMMAND_WRAP;
	case OPT_TIMEOUT:
	case OPT_STAGE:
		return command == CLI_COMMAND_BASH || command == CLI_COMMAND_RUN;
	case OPT_COMMAND:
		return command == CLI_COMMAND_BASH;
	}
	return false;
}

const char *cli_command_name(cli_command command) {
	switch (command) {
	case CLI_COMMAND_NONE: return NULL;
	case CLI_COMMAND_RUN: return "run";
	case CLI_COMMAND_BASH: return "bash";
	case CLI_COMMAND_WRAP: return "wrap";
	case CLI_COMMAND_PROBE: return "probe";
	case CLI_COMMAND_FS: return "fs";
	case CLI_COMMAND_EXPORT: return "export";
	}
	return NULL;
}

const char *cli_help_hint(cli_command command) {
	switch (command) {
	case CLI_COMMAND_NONE: return "Try 'confine --help' for more information.";
	case CLI_COMMAND_RUN: return "Try 'confine run --help' for more information.";
	case CLI_COMMAND_BASH: return "Try 'confine bash --help' for more information.";
	case CLI_COMMAND_WRAP: return "Try 'confine wrap --help' for more information.";
	case CLI_COMMAND_PROBE: return "Try 'confine probe --help' for more information.";
	case CLI_COMMAND_FS: return "Try 'confine fs --help' for more information.";
	case CLI_COMMAND_EXPORT: return "Try 'confine export --help' for more information.";
	}
	return "Try 'confine --help' for more information.";
}

#define COMMON_OPTIONS                                                                       \
	"  -m, --mode MODE       read-only, workspace-write or danger-full-access\n"            \
	"                        (default: the config's mode, else read-only)\n"                \
	"  -w, --workspace DIR   the workspace root (default: the config's workspaceRoot,\n"    \
	"                        else the current directory); a relative DIR is taken\n"       \
	"                        from the current directory\n"                                 \
	"      --runner NAME     pin the runner: bwrap, landlock or seatbelt (used\n"          \
	"                        unprobed; fails closed if it cannot run)\n"                    \
	"      --config FILE     JSON configuration (default: $CONFINE_CONFIG, else none)\n"

#define POLICY_OPTIONS                                                                       \
	"Policy options (config keys in brackets; repeatable where a list):\n"                  \
	"      --writable DIR    another writable directory (workspace-write)\n"               \
	"                        [writableRoots]\n"                                            \
	"      --protect PATH    keep PATH read-only inside the writable roots; relative:\n"   \
	"                        under each of them [protectedPaths]\n"                        \
	"      --no-default-protections\n"                                                     \
	"                        let .git/hooks and .git/config be written\n"                  \
	"                        [defaultProtections]\n"                                       \
	"      --deny-read PATH  neither readable nor writable [denyRead]\n"                   \
	"      --network on|off  off: no connection but to the sandbox itself [network]\n"     \
	"      --allow-host HOST the network allowlist: only HOST (or *.SUFFIX) through\n"   \
	"                        confine's proxy, nothing else (implies the network off\n"   \
	"                        around it) [network.allow]\n"                                 \
	"      --deny-host HOST  refused even where --allow-host matches [network.deny]\n"   \
	"      --allow-local-network\n"                                                       \
	"                        let an allowed name resolve to a loopback or private\n"     \
	"                        address [network.allowLocal]\n"                               \
	"      --allow-unix-socket PATH\n"                                                     \
	"                        a socket outside the writable roots the command may\n"        \
	"                        connect to [allowUnixSockets]\n"                              \
	"      --env-inherit all|none\n"                                                       \
	"                        start from the caller's environment or an empty one\n"        \
	"                        [env.inherit]\n"                                              \
	"      --env-include PAT keep matching variables whatever the excludes say\n"          \
	"                        [env.include]\n"                                              \
	"      --env-exclude PAT drop matching variables [env.exclude]\n"                      \
	"      --env-set NAME=VALUE\n"                                                         \
	"                        set a variable [env.set]\n"                                   \
	"      --no-default-env-excludes\n"                                                    \
	"                        keep *KEY* *SECRET* *TOKEN* *PASSWORD* *CREDENTIAL*\n"        \
	"                        [env.defaultExcludes]\n"                                      \
	"      --require-full    fail rather than run with part of the policy unenforced\n"    \
	"                        [requireFull]\n"                                             \
	"      --stage DIR       (run, bash) write nowhere but DIR (absent or empty): see\n"  \
	"                        'confine stage --help'\n"                                    \
	"Limits (SIZE: digits with K, M, G or T; any: \"unlimited\" lifts it) [limits]:\n"    \
	"      --max-pids N      processes at once (default 4096 where the run's cgroup\n"   \
	"                        holds it) [limits.pids]\n"                                   \
	"      --max-memory SIZE memory of the run [limits.memory]\n"                        \
	"      --max-cpu SECONDS CPU time of each process [limits.cpuSeconds]\n"             \
	"      --max-file-size SIZE\n"                                                        \
	"                        largest file written; past it EFBIG [limits.fileSize]\n"     \
	"      --max-temp SIZE   size of the temp area [limits.temp]\n"                        \
	"      --max-open-files N\n"                                                          \
	"                        descriptors of each process [limits.openFiles]\n"

static const char help_global[] =
	"Usage: confine COMMAND [OPTION...]\n"
	"Run commands confined: writes are allowed only where the mode permits.\n"
	"\n"
	"Commands:\n"
	"  run   [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json] [--timeout MS]\n"
	"        -- PROGRAM [ARG...]\n"
	"        run PROGRAM confined, with the terminal's stdin, stdout and stderr\n"
	"  bash  [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]\n"
	"        [--timeout MS] -c COMMAND\n"
	"        run COMMAND with bash, confined, and print what an agent's model sees\n"
	"  wrap  [-m MODE] [-w DIR] [--runner NAME] [--config FILE] -- PROGRAM [ARG...]\n"
	"        print the confined argv as JSON; runs nothing\n"
	"  probe [--runner NAME] [--config FILE] [--json]\n"
	"        report which sandbox backend this host can use\n"
	"  fs    [-m MODE] [-w DIR] [--config FILE] [--json] OPERATION PATH [TO]\n"
	"        a harness's own read, write, append, list, stat, mkdir, remove or\n"
	"        rename, under the policy a run would get (no link followed out)\n"
	"  export oci|k8s --bundle DIR [-m MODE] [-w DIR] [--config FILE] [--json]\n"
	"        -- PROGRAM [ARG...]\n"
	"        write the policy as an OCI bundle or Kubernetes objects, and report\n"
	"        what of it the target does not hold; runs nothing\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help (or a command's: confine run --help)\n"
	"  -V, --version  show the version\n"
	"\n"
	"Modes: read-only (no writes but /dev/null), workspace-write (the workspace\n"
	"and the temp area), danger-full-access (unconfined). A confined mode never\n"
	"runs a command unconfined: where no backend can confine, confine fails.\n"
	"\n"
	"Configuration (--config FILE or $CONFINE_CONFIG) is a JSON object with the\n"
	"optional keys mode, workspaceRoot, runnerCommand, runnerFailureSignatures,\n"
	"probeTimeoutMs and landlockLauncher, and the policy keys writableRoots,\n"
	"protectedPaths, defaultProtections, denyRead, network, allowUnixSockets, env\n"
	"(inherit, include, exclude, set, defaultExcludes), requireFull and limits\n"
	"(pids, memory, cpuSeconds, fileSize, temp, openFiles; a command's help\n"
	"names the option of each). Flags that take a list add to the file's list;\n"
	"other flags override it.\n"
	"\n"
	"Exit status (as env(1) and timeout(1)): 125 when confine itself fails\n"
	"(USAGE, INVALID_CONFIG, INVALID_POLICY, SANDBOX_UNAVAILABLE, SYSTEM_ERROR,\n"
	"SPAWN_FAILED), with 'confine: MESSAGE' on stderr and, where JSON is\n"
	"printed, {\"error\":{\"code\",\"message\",\"runnerFailure\"}}; 126 when PROGRAM\n"
	"cannot be run, 127 when it is not found; otherwise as each command's help\n"
	"says.\n";

static const char help_run[] =
	"Usage: confine run [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]\n"
	"                   [--timeout MS] -- PROGRAM [ARG...]\n"
	"Run PROGRAM confined, in the workspace root. stdin, stdout and stderr are\n"
	"the caller's. On stderr confine adds only its own lines: 'confine: MESSAGE'\n"
	"when it fails, 'confine: warning: ...' for git hooks or settings the run\n"
	"left and (without --json) for clauses of the policy that did not hold, and\n"
	"with --json the outcome as the last line. The program's stderr is\n"
	"also kept (bounded) to tell a denied write and to quote a runner that\n"
	"failed before the program started; it never decides that the runner failed.\n"
	"The program runs in its own session, with no descriptor above 2: it uses\n"
	"the terminal through its standard streams. confine forwards SIGINT,\n"
	"SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGWINCH to the run; 3 s\n"
	"after SIGTERM, SIGHUP or SIGQUIT whatever is left gets SIGKILL (not after\n"
	"SIGINT). When the program has ended, what it left running is ended too.\n"
	"\n"
	"Options:\n" COMMON_OPTIONS
	"      --timeout MS      bound on the run, 1 to 600000 (default: none); then\n"
	"                        SIGTERM to the run, and SIGKILL 3000 ms later\n"
	"      --json            when the program has ended, write one JSON object as\n"
	"                        the last line of stderr (stdout stays the program's):\n"
	"                        {\"exitCode\"|\"signal\",\"timedOut\",\"sandbox\":{\"mode\",\n"
	"                         \"denied\",\"networkDenied\",\"denials\":[{\"op\",\n"
	"                         \"path\"|\"address\",\"clause\"}],\"enforcement\",\n"
	"                         \"unenforced\",\"layers\",\n"
	"                         \"clauses\":[{\"clause\",\"subject\",\"status\",\"layers\",\n"
	"                         \"reason\",\"needs\"}],\"runner\",\"runnerFailed\",\n"
	"                         \"gitHazards\":[{\"path\",\"kind\"}],\n"
	"                         \"limit\":null|{\"name\",\"value\",\"killed\"}},\n"
	"                         \"usage\":{\"peakMemory\",\"peakProcesses\",\"cpuSeconds\"},\n"
	"                         \"error\":null|{\"code\",\"message\",\"runnerFailure\"}};\n"
	"                        when nothing ran, {\"error\":{...}} (signal is a name,\n"
	"                        \"SIGTERM\"; a field is absent where it does not apply)\n"
	"  -h, --help            show this help\n"
	"\n" POLICY_OPTIONS
	"\n"
	"Exit status: the program's; 128+N when signal N killed it; 127 when PROGRAM\n"
	"is not found, 126 when it is not executable (nothing ran); 125 when confine\n"
	"fails (nothing ran, or the runner failed before running the program).\n";

static const char help_bash[] =
	"Usage: confine bash [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]\n"
	"                    [--timeout MS] -c COMMAND\n"
	"Run COMMAND with `bash -c`, confined, in the workspace root; capture its output\n"
	"and print the rendering an agent's model sees: stdout, then [stderr] and\n"
	"stderr, or (no output); then markers for a denied write (and a line\n"
	"'[denied: OP OBJECT (CLAUSE)]' for each refusal whose object is known), a\n"
	"network refusal with --network off, a limit that stopped the run\n"
	"('[sandbox: limit reached: pids (256)]', '[sandbox: killed: memory limit\n"
	"(2 GiB)]'), a timeout, a signal or a non-zero exit code. confine's own stderr holds only 'confine: MESSAGE' when it fails and\n"
	"'confine: warning: ...' for git hooks or settings the run left. When a\n"
	"clause of the policy did not hold, the rendering says so in one\n"
	"'[sandbox: not enforced on this run: ...]' line. Signals are forwarded as by\n"
	"'confine run'.\n"
	"\n"
	"Options:\n" COMMON_OPTIONS
	"      --json            print one JSON object instead:\n"
	"                        {\"exitCode\"|\"signal\",\"timedOut\",\"stdout\",\"stderr\",\n"
	"                         \"truncated\",\"stdoutTruncated\",\"stderrTruncated\",\n"
	"                         \"sandbox\":{\"mode\",\"denied\",\"networkDenied\",\n"
	"                         \"denials\":[{\"op\",\"path\"|\"address\",\"clause\"}],\n"
	"                         \"enforcement\",\"unenforced\",\n"
	"                         \"layers\",\"clauses\":[{\"clause\",\"subject\",\"status\",\n"
	"                         \"layers\",\"reason\",\"needs\"}],\"runner\",\"runnerFailed\",\n"
	"                         \"gitHazards\":[{\"path\",\"kind\"}],\n"
	"                         \"limit\":null|{\"name\",\"value\",\"killed\"}},\n"
	"                         \"usage\":{\"peakMemory\",\"peakProcesses\",\"cpuSeconds\"},\n"
	"                         \"error\":null|{\"code\",\"message\",\"runnerFailure\"}}\n"
	"                        (signal is a name, \"SIGTERM\"; truncated is either\n"
	"                        stream's; when nothing ran, {\"error\":{...}} alone; a\n"
	"                        field is absent where it does not apply)\n"
	"      --timeout MS      bound on the run, 1 to 600000 (default 120000); then\n"
	"                        SIGTERM, and SIGKILL 3000 ms later\n"
	"  -c COMMAND            the bash command to run\n"
	"  -h, --help            show this help\n"
	"\n" POLICY_OPTIONS
	"\n"
	"Exit status: the command's exit code; 128+N when signal N killed it (a\n"
	"timeout kills with SIGTERM or SIGKILL); 125 when confine fails, including\n"
	"a runner failure.\n";

static const char help_wrap[] =
	"Usage: confine wrap [-m MODE] [-w DIR] [--runner NAME] [--config FILE] -- PROGRAM [ARG...]\n"
	"Print the argv that runs PROGRAM confined, as one JSON object, and run\n"
	"nothing, so a harness in any language can spawn it itself:\n"
	"  {\"argv\":[...],\"runner\",\"enforcement\",\"unenforced\":[...],\"layers\":[...],\n"
	"   \"clauses\":[{\"clause\",\"subject\",\"status\",\"layers\",\"reason\",\"needs\"}],\n"
	"   \"denialSignatures\":[...],\"runnerFailureRules\":[{\"allowedExitCodes\",\n"
	"   \"fatalSignatures\",\"informationalLines\"}],\"env\":{\"NAME\":\"VALUE\",...},\n"
	"   \"policy\":{\"mode\",\"workspaceRoot\",\"writableRoots\",\"protectedPaths\",\n"
	"   \"defaultProtections\",\"denyRead\",\"network\",\"allowUnixSockets\",\n"
	"   \"env\":{\"inherit\",\"include\",\"exclude\",\"set\",\"defaultExcludes\"},\n"
	"   \"requireFull\",\"limits\"}}\n"
	"or, when it fails, {\"error\":{\"code\",\"message\",\"runnerFailure\"}} (code USAGE,\n"
	"INVALID_CONFIG, INVALID_POLICY, SANDBOX_UNAVAILABLE or SYSTEM_ERROR;\n"
	"runnerFailure only when a runner failed). A pinned --runner is probed first.\n"
	"Spawn it in a new session (setsid) with no descriptor above 2, with the\n"
	"workspace root as its working directory and exactly env as its environment\n"
	"(the policy's environment filter applied). Under danger-full-access no sandbox\n"
	"is involved: argv is PROGRAM [ARG...] unchanged, runner is null, enforcement\n"
	"is absent and the lists are empty.\n"
	"\n"
	"Options:\n" COMMON_OPTIONS
	"  -h, --help            show this help\n"
	"\n" POLICY_OPTIONS
	"\n"
	"Exit status: 0 when the wrap is printed; 125 with the error object.\n";

static const char help_probe[] =
	"Usage: confine probe [--runner NAME] [--config FILE] [--json]\n"
	"Run the runner ladder (Linux: bwrap, then the Landlock launcher; macOS:\n"
	"Seatbelt) and report the verdict: the runner, its enforcement (full or\n"
	"partial) and the kernel's Landlock ABI where known; or that none is usable,\n"
	"with the reason.\n"
	"\n"
	"Options:\n"
	"      --runner NAME     probe only this runner: bwrap, landlock or seatbelt\n"
	"                        (it runs `true` confined under it, bounded by\n"
	"                        probeTimeoutMs; a missing or non-executable runner is\n"
	"                        not usable)\n"
	"      --config FILE     JSON configuration (default: $CONFINE_CONFIG, else none)\n"
	"      --json            print one JSON object:\n"
	"                        {\"usable\",\"runner\",\"enforcement\",\"landlockAbi\",\n"
	"                         \"unenforced\",\"supervisor\",\"layers\",\"clauses\":[{\n"
	"                         \"clause\",\"subject\",\"status\",\"layers\",\"reason\",\n"
	"                         \"needs\"}],\"runnerPath\",\"reason\",\"runnerFailure\"}\n"
	"                        (runner is null when unusable; reason says why, and\n"
	"                        runnerFailure is the runner's line when it failed; a\n"
	"                        field is absent where it does not apply); when confine\n"
	"                        fails, {\"error\":{\"code\",\"message\"}}\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 when a backend is usable, 1 when none is (a verdict), 125\n"
	"when confine itself fails (usage, configuration).\n";

static const char help_fs[] =
	"Usage: confine fs [-m MODE] [-w DIR] [--config FILE] [--json] [POLICY OPTIONS]\n"
	"                  OPERATION PATH [TO]\n"
	"An agent harness's own file operations under the policy a run would get:\n"
	"  read PATH      print the file ([--max-bytes N]: at most N bytes)\n"
	"  write PATH     replace the file with stdin, atomically (new inode, the old\n"
	"                 permission bits kept)\n"
	"  append PATH    append stdin (a hard-linked file is refused)\n"
	"  list PATH      the directory's entries, one 'TYPE NAME' line each (f, d, l, o)\n"
	"  stat PATH      'TYPE SIZE MODE NLINK MTIME' of the name (a link not followed)\n"
	"  mkdir PATH     one directory\n"
	"  remove PATH    a file, a link or an empty directory\n"
	"  rename FROM TO\n"
	"Every path is resolved beneath the root that holds it (a relative PATH is\n"
	"relative to the workspace root): a symbolic link or '..' that leads out,\n"
	"and a magic link (/proc/self/root), are refused. Writes go only under the\n"
	"writable roots of workspace-write, never onto a protected path, a path\n"
	"that holds one, or a denyRead path; reads never return a denyRead path.\n"
	"\n"
	"Options:\n"
	"  -m, --mode MODE       read-only, workspace-write or danger-full-access\n"
	"  -w, --workspace DIR   the workspace root (default: the config's, else the\n"
	"                        current directory)\n"
	"      --config FILE     JSON configuration (default: $CONFINE_CONFIG, else none)\n"
	"      --json            list and stat as one JSON object ({\"entries\":[{\"name\",\n"
	"                        \"type\"}]} and {\"type\",\"size\",\"mode\",\"nlink\",\n"
	"                        \"mtime\"}); read prints the bytes; the other\n"
	"                        operations print {\"gitHazards\":[{\"path\",\"kind\"}]}\n"
	"                        on success (what git would run that the write left);\n"
	"                        a refusal is {\"error\":{\"code\",\"message\"}} on stdout\n"
	"      --max-bytes N     read: at most N bytes (exit 0; stderr says it was cut)\n"
	"  -h, --help            show this help\n"
	"\n" POLICY_OPTIONS
	"\n"
	"Exit status: 0 done; 1 refused by the policy (DENIED) or by the filesystem\n"
	"(FS_ERROR), with 'confine: MESSAGE' naming the path and the clause; 125 when\n"
	"confine fails (usage, configuration, policy).\n";

static const char help_export[] =
	"Usage: confine export oci|k8s --bundle DIR [-m MODE] [-w DIR] [--config FILE]\n"
	"                      [--json] [POLICY OPTIONS] -- PROGRAM [ARG...]\n"
	"Write the policy a run of PROGRAM would get for another engine, and run\n"
	"nothing. oci: DIR/config.json (OCI runtime-spec 1.0.2) and an empty\n"
	"DIR/rootfs, for 'runc run -b DIR ID': the host's / read-only, the writable\n"
	"roots, protected paths read-only, denyRead masked, a private /tmp, a network\n"
	"namespace with loopback only for --network off, the filtered environment, no\n"
	"capabilities, no new privileges and the launcher's seccomp deny-list. k8s:\n"
	"DIR/k8s.json (a v1 List: a Pod with runtimeClassName gvisor and, with the\n"
	"network off, a NetworkPolicy) and DIR/seccomp.json (its Localhost profile).\n"
	"Every export reports each clause: enforced, partial (held differently) or\n"
	"unenforced (the target cannot hold it), on stderr, one line each.\n"
	"\n"
	"Options:\n"
	"      --bundle DIR      the directory to write (made if missing; not inside a\n"
	"                        writable root)\n"
	"      --runtime runc|runsc\n"
	"                        oci: the runtime the bundle is for (default runc;\n"
	"                        runsc: run it with 'runsc --oci-seccomp\n"
	"                        --network=none' for the network off)\n"
	"  -m, --mode MODE       read-only or workspace-write\n"
	"  -w, --workspace DIR   the workspace root (default: the config's, else the\n"
	"                        current directory)\n"
	"      --config FILE     JSON configuration (default: $CONFINE_CONFIG, else none)\n"
	"      --json            print {\"target\",\"bundle\",\"files\",\"enforcement\",\n"
	"                        \"clauses\":[{\"clause\",\"subject\",\"status\",\"layers\",\n"
	"                        \"reason\",\"needs\"}]} on stdout instead; when it fails,\n"
	"                        {\"error\":{\"code\",\"message\"}}\n"
	"  -h, --help            show this help\n"
	"\n" POLICY_OPTIONS
	"\n"
	"With --require-full an export that loses a clause is refused\n"
	"(SANDBOX_UNAVAILABLE, naming the clauses) and nothing is written.\n"
	"Exit status: 0 when written; 125 when confine fails.\n";

const char *cli_help_text(cli_command command) {
	switch (command) {
	case CLI_COMMAND_NONE: return help_global;
	case CLI_COMMAND_RUN: return help_run;
	case CLI_COMMAND_BASH: return help_bash;
	case CLI_COMMAND_WRAP: return help_wrap;
	case CLI_COMMAND_PROBE: return help_probe;
	case CLI_COMMAND_FS: return help_fs;
	case CLI_COMMAND_EXPORT: return help_export;
	}
	return help_global;
}

static int usage_error(cli_args *args, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(cli_args *args, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args->error, sizeof args->error, fmt, ap);
	va_end(ap);
	args->action = CLI_ACTION_USAGE_ERROR;
	return -EINVAL;
}

/* A value the library refused for the policy: the same text, and
 * INVALID_POLICY rather than USAGE (cli_args.error_is_policy). */
static int policy_value_error(cli_args *args, const char *shown, const confine_error *err) {
	usage_error(args, "invalid %s: %s", shown, err->message);
	args->error_is_policy = true;
	return -EINVAL;
}

/* "confine run", or "confine" at the top level: used in messages. */
static const char *command_label(cli_command command) {
	switch (command) {
	case CLI_COMMAND_NONE: return "confine";
	case CLI_COMMAND_RUN: return "confine run";
	case CLI_COMMAND_BASH: return "confine bash";
	case CLI_COMMAND_WRAP: return "confine wrap";
	case CLI_COMMAND_PROBE: return "confine probe";
	case CLI_COMMAND_FS: return "confine fs";
	case CLI_COMMAND_EXPORT: return "confine export";
	}
	return "confine";
}

/* A whole number of milliseconds in [1, CONFINE_MAX_TIMEOUT_MS], digits
 * only: no sign, no spaces, no suffix, so a typo never becomes a bound. */
static bool parse_timeout(const char *text, unsigned *ret) {
	unsigned long value = 0;
	if (!text[0])
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		value = value * 10 + (unsigned long)(*p - '0');
		if (value > CONFINE_MAX_TIMEOUT_MS)
			return false;
	}
	if (value == 0)
		return false;
	*ret = (unsigned)value;
	return true;
}

/* Appends `value` (a pointer into argv) to a NULL-terminated list. */
static int push_value(cli_args *args, const char ***list, const char *value) {
	size_t n = 0;
	const char **grown;
	while (*list && (*list)[n])
		n++;
	grown = realloc(*list, (n + 2) * sizeof *grown);
	if (!grown)
		return usage_error(args, "out of memory");
	grown[n] = value;
	grown[n + 1] = NULL;
	*list = grown;
	return 0;
}

static int push_path(cli_args *args, const char ***list, const char *shown, const char *value) {
	if (!value[0])
		return usage_error(args, "option '%s' requires a path, got an empty string", shown);
	return push_value(args, list, value);
}

/* An env pattern or assignment, checked with the library's rules and
 * words (a scratch policy is the public way to reach them). */
static int push_env(cli_args *args, option_id id, const char ***list, const char *shown,
                    const char *value) {
	confine_policy scratch;
	confine_error err;
	int r;
	memset(&scratch, 0, sizeof scratch);
	r = id == OPT_ENV_INCLUDE   ? confine_policy_add_env_include(&scratch, value, &err)
	    : id == OPT_ENV_EXCLUDE ? confine_policy_add_env_exclude(&scratch, value, &err)
	                            : confine_policy_add_env_set(&scratch, value, &err);
	confine_strv_free(scratch.env.include);
	confine_strv_free(scratch.env.exclude);
	confine_strv_free(scratch.env.set);
	if (r < 0)
		return policy_value_error(args, shown, &err);
	return push_value(args, list, value);
}

void cli_args_clear(cli_args *args) {
	if (!args)
		return;
	free(args->writable);
	free(args->protect);
	free(args->deny_read);
	free(args->allow_unix_sockets);
	free(args->allow_hosts);
	free(args->deny_hosts);
	args->allow_hosts = args->deny_hosts = NULL;
	free(args->env_include);
	free(args->env_exclude);
	free(args->env_set);
	args->writable = args->protect = args->deny_read = args->allow_unix_sockets = NULL;
	args->env_include = args->env_exclude = args->env_set = NULL;
}

/* Stores one option's value (or flag) into `args`. */
static int apply_option(cli_args *args, const option_spec *spec, const char *shown,
                        const char *value) {
	confine_error err;
	switch (spec->id) {
	case OPT_HELP:
		args->action = CLI_ACTION_HELP;
		return 0;
	case OPT_MODE:
		if (confine_mode_parse(value, &args->mode, &err) < 0)
			return policy_value_error(args, shown, &err);
		args->has_mode = true;
		return 0;
	case OPT_WORKSPACE:
		/* Kept as given: an empty or missing root is the policy's error,
		 * reported with the library's own message. */
		args->workspace = value;
		return 0;
	case OPT_RUNNER:
		if (confine_runner_parse(value, &args->runner, &err) < 0)
			return usage_error(args, "invalid %s: %s", shown, err.message);
		args->has_runner = true;
		return 0;
	case OPT_CONFIG:
		if (!value[0])
			return usage_error(args, "option '%s' requires a file name, got an empty string",
			                   shown);
		args->config = value;
		return 0;
	case OPT_JSON:
		args->json = true;
		return 0;
	case OPT_TIMEOUT:
		if (!parse_timeout(value, &args->timeout_ms))
			return usage_error(args,
			                   "invalid %s \"%s\": expected a whole number of milliseconds "
			                   "from 1 to %u",
			                   shown, value, (unsigned)CONFINE_MAX_TIMEOUT_MS);
		args->has_timeout = true;
		return 0;
	case OPT_BUNDLE:
		if (!value[0])
			return usage_error(args, "option '%s' requires a directory, got an empty string",
			                   shown);
		args->bundle = value;
		return 0;
	case OPT_RUNTIME:
		if (strcmp(value, "runc") != 0 && strcmp(value, "runsc") != 0)
			return usage_error(args, "invalid %s \"%s\": expected runc or runsc", shown, value);
		args->oci_runtime = value;
		return 0;
	case OPT_MAX_BYTES: {
		char *end = NULL;
		errno = 0;
		args->max_bytes = strtoull(value, &end, 10);
		if (errno || !value[0] || *end || value[0] == '-' || args->max_bytes == 0)
			return usage_error(args, "invalid %s \"%s\": expected a whole number of bytes, 1 or more",
			                   shown, value);
		args->has_max_bytes = true;
		return 0;
	}
	case OPT_COMMAND:
		/* A second -c would silently drop the first command. */
		if (args->bash_command)
			return usage_error(args,
			                   "option '%s' is given twice: confine bash runs one COMMAND "
			                   "(join commands with ';' or '&&' in one -c)",
			                   shown);
		args->bash_command = value;
		return 0;
	case OPT_WRITABLE:
		args->has_policy_options = true;
		return push_path(args, &args->writable, shown, value);
	case OPT_PROTECT:
		args->has_policy_options = true;
		return push_path(args, &args->protect, shown, value);
	case OPT_NO_DEFAULT_PROTECTIONS:
		args->has_policy_options = true;
		args->no_default_protections = true;
		return 0;
	case OPT_DENY_READ:
		args->has_policy_options = true;
		return push_path(args, &args->deny_read, shown, value);
	case OPT_NETWORK:
		args->has_policy_options = true;
		if (confine_network_parse(value, &args->network, &err) < 0)
			return policy_value_error(args, shown, &err);
		args->has_network = true;
		return 0;
	case OPT_ALLOW_UNIX_SOCKET:
		args->has_policy_options = true;
		return push_path(args, &args->allow_unix_sockets, shown, value);
	case OPT_ALLOW_HOST:
	case OPT_DENY_HOST:
		args->has_policy_options = true;
		/* Checked by the library when the policy is built: INVALID_POLICY
		 * naming the flag and the value. */
		return push_value(args, spec->id == OPT_ALLOW_HOST ? &args->allow_hosts : &args->deny_hosts,
		                  value);
	case OPT_ALLOW_LOCAL_NETWORK:
		args->has_policy_options = true;
		args->allow_local_network = true;
		return 0;
	case OPT_ENV_INHERIT:
		args->has_policy_options = true;
		if (confine_env_inherit_parse(value, &args->env_inherit, &err) < 0)
			return policy_value_error(args, shown, &err);
		args->has_env_inherit = true;
		return 0;
	case OPT_ENV_INCLUDE:
		args->has_policy_options = true;
		return push_env(args, spec->id, &args->env_include, shown, value);
	case OPT_ENV_EXCLUDE:
		args->has_policy_options = true;
		return push_env(args, spec->id, &args->env_exclude, shown, value);
	case OPT_ENV_SET:
		args->has_policy_options = true;
		return push_env(args, spec->id, &args->env_set, shown, value);
	case OPT_NO_DEFAULT_ENV_EXCLUDES:
		args->has_policy_options = true;
		args->no_default_env_excludes = true;
		return 0;
	case OPT_REQUIRE_FULL:
		args->has_policy_options = true;
		args->require_full = true;
		return 0;
	case OPT_STAGE:
		if (!value[0])
			return usage_error(args, "%s needs a directory", shown);
		args->stage = value;
		return 0;
	case OPT_LIMIT: {
		confine_limit limit;
		if (confine_limit_from_name(shown, &limit, &err) < 0)
			return usage_error(args, "internal error: %s is not a limit", shown);
		args->has_policy_options = true;
		/* The last one given wins, as for a scalar option. */
		args->limits[limit] = value;
		return 0;
	}
	}
	return usage_error(args, "internal error: unhandled option %s", shown);
}

static const option_spec *find_long(const char *name, size_t len) {
	char flag[64];
	confine_limit limit;
	for (size_t i = 0; i < sizeof option_table / sizeof option_table[0]; i++) {
		const char *long_name = option_table[i].long_name;
		if (long_name && strlen(long_name) == len && strncmp(long_name, name, len) == 0)
			return &option_table[i];
	}
	if (len < 40 && snprintf(flag, sizeof flag, "--%.*s", (int)len, name) > 0 &&
	    confine_limit_from_name(flag, &limit, NULL) == 0)
		return &limit_option;
	return NULL;
}

static const option_spec *find_short(char name) {
	for (size_t i = 0; i < sizeof option_table / sizeof option_table[0]; i++)
		if (option_table[i].short_name && option_table[i].short_name == name)
			return &option_table[i];
	return NULL;
}

/* Parses the options of a subcommand from argv[*index]; stops after `--`
 * (run, wrap) with the program's argv recorded, or at the end. */
/* Long on purpose: a flat list of options, one short branch each. */
static int parse_command_options(int argc, char *const *argv, int index, cli_args *args) {
	cli_command command = args->command;
	bool saw_separator = false;

	while (index < argc) {
		const char *arg = argv[index++];
		const option_spec *spec;
		const char *value = NULL;
		char shown[64];

		if (strcmp(arg, "--") == 0) {
			if (command != CLI_COMMAND_RUN && command != CLI_COMMAND_WRAP &&
			    command != CLI_COMMAND_EXPORT)
				return usage_error(args,
				                   "%s takes no '-- PROGRAM'%s", command_label(command),
				                   command == CLI_COMMAND_BASH
				                           ? "; give the command with -c COMMAND"
				                           : "");
			saw_separator = true;
			args->program_argv = argv + index;
			args->program_argc = (size_t)(argc - index);
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			/* A positional argument before `--`. */
			switch (command) {
			case CLI_COMMAND_RUN:
			case CLI_COMMAND_WRAP:
			case CLI_COMMAND_EXPORT:
				return usage_error(args,
				                   "missing '--' before the command: write '%s [OPTION...] "
				                   "-- %s ...'",
				                   command_label(command), arg);
			case CLI_COMMAND_BASH:
				return usage_error(args,
				                   "unexpected argument '%s'; give the command with -c COMMAND",
				                   arg);
			case CLI_COMMAND_FS:
				/* OP, then one or two paths. */
				if (!args->fs_op) {
					args->fs_op = arg;
					continue;
				}
				if (args->fs_n_paths < 2) {
					args->fs_paths[args->fs_n_paths++] = arg;
					continue;
				}
				return usage_error(args, "unexpected argument '%s': %s %s takes at most two paths",
				                   arg, command_label(command), args->fs_op);
			case CLI_COMMAND_NONE:
			case CLI_COMMAND_PROBE:
				break;
			}
			return usage_error(args, "unexpected argument '%s'", arg);
		}

		if (arg[1] == '-') {
			/* --name or --name=value */
			const char *name = arg + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			spec = find_long(name, len);
			snprintf(shown, sizeof shown, "--%.*s", (int)(len < 40 ? len : 40), name);
			if (!spec || !command_accepts(command, spec->id))
				return usage_error(args, "unknown option '%s' for '%s'", shown,
				                   command_label(command));
			if (eq) {
				if (!spec->value_name)
					return usage_error(args, "option '%s' takes no value", shown);
				value = eq + 1;
			}
		} else {
			/* -x or -xVALUE */
			spec = find_short(arg[1]);
			snprintf(shown, sizeof shown, "-%c", arg[1]);
			if (!spec || !command_accepts(command, spec->id))
				return usage_error(args, "unknown option '%s' for '%s'", arg,
				                   command_label(command));
			if (arg[2] != '\0') {
				if (!spec->value_name)
					return usage_error(args, "unknown option '%s' for '%s'", arg,
					                   command_label(command));
				value = arg + 2;
			}
		}
		if (spec->value_name && !value) {
			if (index >= argc)
				return usage_error(args, "option '%s' requires a value", shown);
			/* `--config -- true`: the value is missing, not the `--`. */
			if (strcmp(argv[index], "--") == 0)
				return usage_error(args,
				                   "option '%s' is missing its %s: the '--' after it ends "
				                   "confine's options and cannot be a value",
				                   shown, spec->value_name);
			value = argv[index++];
		}
		if (apply_option(args, spec, shown, value) < 0)
			return -EINVAL;
		if (args->action == CLI_ACTION_HELP)
			return 0; /* --help wins over whatever follows */
	}

	switch (command) {
	case CLI_COMMAND_RUN:
	case CLI_COMMAND_WRAP:
	case CLI_COMMAND_EXPORT:
		if (command == CLI_COMMAND_EXPORT && !args->bundle)
			return usage_error(args, "missing --bundle DIR: confine export writes a directory");
		if (command == CLI_COMMAND_EXPORT && args->oci_runtime &&
		    strcmp(args->export_target ? args->export_target : "", "oci") != 0)
			return usage_error(args, "--runtime is for confine export oci");
		if (!saw_separator)
			return usage_error(args, "missing '-- PROGRAM [ARG...]': %s needs a command after '--'",
			                   command_label(command));
		if (args->program_argc == 0)
			return usage_error(args, "missing PROGRAM after '--'");
		if (args->program_argv[0][0] == '\0')
			return usage_error(args, "PROGRAM after '--' is an empty string");
		break;
	case CLI_COMMAND_BASH:
		if (!args->bash_command)
			return usage_error(args, "missing -c COMMAND");
		if (args->bash_command[0] == '\0')
			return usage_error(args, "-c COMMAND is an empty string");
		break;
	case CLI_COMMAND_FS: {
		static const char *const ops[] = { "read", "write", "append", "list", "stat",
			                           "mkdir", "remove", "rename" };
		size_t want = 1;
		bool known = false;
		if (!args->fs_op)
			return usage_error(args, "missing OPERATION: read, write, append, list, stat, mkdir, "
			                         "remove or rename");
		for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
			known |= strcmp(args->fs_op, ops[i]) == 0;
		if (!known)
			return usage_error(args, "unknown operation '%s' (read, write, append, list, stat, "
			                         "mkdir, remove or rename)",
			                   args->fs_op);
		if (strcmp(args->fs_op, "rename") == 0)
			want = 2;
		if (args->fs_n_paths != want)
			return usage_error(args, "%s %s takes %s", command_label(command), args->fs_op,
			                   want == 2 ? "two paths: FROM TO" : "one PATH");
		for (size_t i = 0; i < args->fs_n_paths; i++)
			if (!args->fs_paths[i][0])
				return usage_error(args, "PATH is an empty string");
		if (args->has_max_bytes && strcmp(args->fs_op, "read") != 0)
			return usage_error(args, "--max-bytes is for fs read");
		break;
	}
	case CLI_COMMAND_NONE:
	case CLI_COMMAND_PROBE:
		break;
	}
	return 0;
}

/* Whether `--json` is one of the options argv[index..) (before any `--`),
 * stepping over the values of options that take one. For a usage error,
 * where parsing stopped before reaching it. */
static bool json_requested(int argc, char *const *argv, int index) {
	while (index < argc) {
		const char *arg = argv[index++];
		const option_spec *spec = NULL;
		if (strcmp(arg, "--") == 0)
			return false;
		if (strcmp(arg, "--json") == 0)
			return true;
		if (arg[0] != '-' || arg[1] == '\0')
			continue;
		if (arg[1] == '-') {
			if (!strchr(arg, '='))
				spec = find_long(arg + 2, strlen(arg + 2));
		} else if (arg[2] == '\0') {
			spec = find_short(arg[1]);
		}
		if (spec && spec->value_name && index < argc && strcmp(argv[index], "--") != 0)
			index++; /* its value, whatever it looks like but `--` */
	}
	return false;
}

int cli_args_parse(int argc, char *const *argv, cli_args *ret) {
	static const struct {
		const char *name;
		cli_command command;
	} commands[] = {
		{"run", CLI_COMMAND_RUN},
		{"bash", CLI_COMMAND_BASH},
		{"wrap", CLI_COMMAND_WRAP},
		{"probe", CLI_COMMAND_PROBE},
		{"fs", CLI_COMMAND_FS},
		{"export", CLI_COMMAND_EXPORT},
	};
	const char *first;

	memset(ret, 0, sizeof *ret);
	ret->action = CLI_ACTION_EXECUTE;
	ret->command = CLI_COMMAND_NONE;

	if (argc < 2 || !argv[1])
		return usage_error(ret, "missing command (run, bash, wrap, probe or fs)");
	first = argv[1];
	if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
		ret->action = CLI_ACTION_HELP;
		return 0;
	}
	if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
		ret->action = CLI_ACTION_VERSION;
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(first, commands[i].name) == 0) {
			int r, at = 2;
			ret->command = commands[i].command;
			/* export's target word comes first: `confine export oci ...`. */
			if (ret->command == CLI_COMMAND_EXPORT &&
			    (argc <= 2 || (argv[2][0] == '-' && strcmp(argv[2], "--help") != 0 &&
			                   strcmp(argv[2], "-h") != 0))) {
				ret->json = json_requested(argc, argv, 2);
				return usage_error(ret, "missing export target: write 'confine export oci' or "
				                        "'confine export k8s'");
			}
			if (ret->command == CLI_COMMAND_EXPORT && argv[2][0] != '-') {
				export_target target;
				if (export_target_parse(argv[2], &target) < 0) {
					ret->json = json_requested(argc, argv, 3);
					return usage_error(ret, "unknown export target '%s' (expected oci or k8s)",
					                   argv[2]);
				}
				ret->export_target = argv[2];
				at = 3;
			}
			r = parse_command_options(argc, argv, at, ret);
			/* A program that asked for JSON gets its usage error as JSON
			 * too, wherever the --json stood among the options. */
			if (r < 0 && !ret->json && command_accepts(ret->command, OPT_JSON))
				ret->json = json_requested(argc, argv, 2);
			return r;
		}
	if (first[0] == '-')
		return usage_error(ret, "unknown option '%s' (a command comes first: run, bash, "
		                        "wrap or probe)",
		                   first);
	return usage_error(ret, "unknown command '%s' (expected run, bash, wrap or probe)", first);
}
