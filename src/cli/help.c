/* SPDX-License-Identifier: MIT */
/* The confine command's help texts (doc/SPEC.md 10) and the words naming
 * its commands. The option lines of POLICY_OPTIONS (every command's),
 * RUN_POLICY_OPTIONS (run, bash) and LIMIT_OPTIONS (run, bash, wrap, export) are
 * checked against the table of options (src/common/options.def): by the
 * unit test test-options-table, every flag a command takes is in its help
 * with its config key in brackets; by tests/helpers/doc_flags.py (the
 * doc suite), no help names a flag its command does not take. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

/* Where a help text names the runners --runner takes: cli_help_text puts
 * the library's list there (runner_list), so no help spells a rung. */
#define RUNNERS "@RUNNERS@"

const char *cli_command_name(cli_command command) {
	switch (command) {
	case CLI_COMMAND_NONE: return NULL;
	case CLI_COMMAND_RUN: return "run";
	case CLI_COMMAND_BASH: return "bash";
	case CLI_COMMAND_WRAP: return "wrap";
	case CLI_COMMAND_PROBE: return "probe";
	case CLI_COMMAND_FS: return "fs";
	case CLI_COMMAND_EXPORT: return "export";
	case CLI_COMMAND_OPTIONS: return "options";
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
	case CLI_COMMAND_OPTIONS: return "Try 'confine options --help' for more information.";
	}
	return "Try 'confine --help' for more information.";
}

#define COMMON_OPTIONS                                                                       \
	"  -m, --mode MODE       read-only, workspace-write or danger-full-access\n"            \
	"                        (default: the config's mode, else read-only)\n"                \
	"  -w, --workspace DIR   the workspace root (default: the config's workspaceRoot,\n"    \
	"                        else the current directory); a relative DIR is taken\n"       \
	"                        from the current directory\n"                                 \
	"      --runner NAME     pin the runner: " RUNNERS "\n"                               \
	"                        (used unprobed; fails closed if it cannot run) [runner]\n"     \
	"      --config FILE     JSON configuration (default: $CONFINE_CONFIG, else none)\n"

#define POLICY_OPTIONS                                                                       \
	"Policy options (config keys in brackets; repeatable where a list):\n"                  \
	"      --writable DIR    another writable directory (workspace-write)\n"               \
	"                        [writableRoots]\n"                                            \
	"      --protect PATH    keep PATH read-only inside the writable roots; relative:\n"   \
	"                        under each of them [protectedPaths]\n"                        \
	"      --unprotect NAME  leave one default protection for what runs later\n"           \
	"                        writable (.bashrc, .envrc, ...; repeatable) [unprotect]\n"   \
	"      --no-default-protections\n"                                                     \
	"                        let .git/hooks and .git/config be written\n"                  \
	"                        [defaultProtections]\n"                                       \
	"      --deny-read PATH  neither readable nor writable [denyRead]\n"                   \
	"      --network on|off  off: no connection but to the sandbox itself [network]\n"     \
	"      --allow-host HOST the network allowlist: only HOST (or *.SUFFIX) through\n"   \
	"                        confine's proxy, nothing else (implies the network off\n"   \
	"                        around it) [network.allow]\n"                                 \
	"      --deny-host HOST  refused even where --allow-host matches (implies the\n"    \
	"                        network off, as --allow-host does) [network.deny]\n"       \
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
	"                        *PASSWD* *PASSPHRASE* *_PWD *_PAT *_AUTH *AUTH_CONFIG*\n"    \
	"                        *JWT* *COOKIE* *WEBHOOK* *DSN* *DATABASE_URL*\n"            \
	"                        *SESSION* (not the login session's) *CONNECTION_STRING*\n"  \
	"                        *_PASS *_PW *PASS *AUTH* *BEARER* *BASIC* BUNDLE_*__*\n"   \
	"                        (not git's author, XAUTHORITY, SSH_AUTH_SOCK), and\n"      \
	"                        values holding scheme://user:pw@, https://token@,\n"       \
	"                        user:pw@host, ?password=, Password=, a private key\n"      \
	"                        [env.defaultExcludes]\n"                                      \
	"      --require-full    fail rather than run with part of the policy unenforced\n"    \
	"                        [requireFull]\n"

/* The run's own (run, bash: the table's ON_RUN rows). */
#define RUN_POLICY_OPTIONS                                                                   \
	"      --ask-host COMMAND\n"                                                          \
	"                        a host on neither network list is asked of\n"              \
	"                        COMMAND HOST PORT: exit 0 allows, its first line is the\n" \
	"                        reason; the answer holds for the run; COMMAND must lie\n"  \
	"                        outside the run's writable roots [network.ask]\n"           \
	"      --stage DIR       write nowhere but DIR (absent or empty): see\n"             \
	"                        'confine stage --help'\n"

/* A confined command's (run, bash, wrap: the table's ON_CONFINED rows). */
#define LIMIT_OPTIONS                                                                        \
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
	"        [--cwd DIR] -- PROGRAM [ARG...]\n"
	"        run PROGRAM confined, with the terminal's stdin, stdout and stderr\n"
	"  bash  [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]\n"
	"        [--timeout MS] [--cwd DIR] -c COMMAND\n"
	"        run COMMAND with bash, confined, and print what an agent's model sees\n"
	"  wrap  [-m MODE] [-w DIR] [--runner NAME] [--config FILE] -- PROGRAM [ARG...]\n"
	"        print the confined argv as JSON; runs nothing\n"
	"  probe [--runner NAME] [--config FILE] [--json]\n"
	"        report which sandbox backend this host can use\n"
	"  fs    [-m MODE] [-w DIR] [--config FILE] [--json] OPERATION PATH [TO]\n"
	"        a harness's own read, write, append, list, stat, mkdir, remove or\n"
	"        rename, under the policy a run would get (no link followed out)\n"
	"  options [--json]\n"
	"        print the table of options (config key, flag, names, type, bounds)\n"
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
	"optional keys mode, workspaceRoot, runner, runnerCommand,\n"
	"runnerFailureSignatures, probeTimeoutMs and landlockLauncher, and the policy\n"
	"keys writableRoots, protectedPaths, defaultProtections, unprotect, denyRead,\n"
	"network, allowUnixSockets, env (inherit, include, exclude, set,\n"
	"defaultExcludes), requireFull and limits\n"
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
	"                   [--timeout MS] [--cwd DIR] -- PROGRAM [ARG...]\n"
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
	"      --cwd DIR         start the command in DIR (default: the workspace root);\n"
	"                        a relative DIR is taken from the current directory\n"
	"      --timeout MS      bound on the run, 1 to 600000 (default: none); then\n"
	"                        SIGTERM to the run, and SIGKILL 3000 ms later\n"
	"      --json            when the program has ended, write one JSON object as\n"
	"                        the last line of stderr (stdout stays the program's):\n"
	"                        {\"exitCode\"|\"signal\",\"timedOut\",\"sandbox\":{\"mode\",\n"
	"                         \"denied\",\"networkDenied\",\"denials\":[{\"op\",\n"
	"                         \"path\"|\"address\",\"clause\"}],\"denialsDropped\",\n"
	"                         \"network\":{\"decisions\":[{\"host\",\"port\",\n"
	"                         \"decision\",\"by\"}],\"decisionsDropped\"},\n"
	"                         \"enforcement\",\n"
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
	"\n" POLICY_OPTIONS RUN_POLICY_OPTIONS LIMIT_OPTIONS
	"\n"
	"Exit status: the program's; 128+N when signal N killed it; 127 when PROGRAM\n"
	"is not found, 126 when it is not executable (nothing ran); 125 when confine\n"
	"fails (nothing ran, or the runner failed before running the program).\n";

static const char help_bash[] =
	"Usage: confine bash [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]\n"
	"                    [--timeout MS] [--cwd DIR] -c COMMAND\n"
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
	"                         \"denialsDropped\",\"network\":{\"decisions\":[{\"host\",\n"
	"                         \"port\",\"decision\",\"by\"}],\"decisionsDropped\"},\n"
	"                         \"enforcement\",\"unenforced\",\n"
	"                         \"layers\",\"clauses\":[{\"clause\",\"subject\",\"status\",\n"
	"                         \"layers\",\"reason\",\"needs\"}],\"runner\",\"runnerFailed\",\n"
	"                         \"gitHazards\":[{\"path\",\"kind\"}],\n"
	"                         \"limit\":null|{\"name\",\"value\",\"killed\"}},\n"
	"                         \"usage\":{\"peakMemory\",\"peakProcesses\",\"cpuSeconds\"},\n"
	"                         \"error\":null|{\"code\",\"message\",\"runnerFailure\"},\n"
	"                         \"rendering\"} (rendering: what is printed without\n"
	"                        --json; signal is a name, \"SIGTERM\"; truncated is either\n"
	"                        stream's; when nothing ran, {\"error\":{...}} alone; a\n"
	"                        field is absent where it does not apply)\n"
	"      --cwd DIR         start the command in DIR (default: the workspace root);\n"
	"                        a relative DIR is taken from the current directory\n"
	"      --timeout MS      bound on the run, 1 to 600000 (default 120000); then\n"
	"                        SIGTERM, and SIGKILL 3000 ms later\n"
	"  -c COMMAND            the bash command to run\n"
	"  -h, --help            show this help\n"
	"\n" POLICY_OPTIONS RUN_POLICY_OPTIONS LIMIT_OPTIONS
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
	"   \"defaultProtections\",\"unprotect\",\"denyRead\",\"network\",\"allowUnixSockets\",\n"
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
	"\n" POLICY_OPTIONS LIMIT_OPTIONS
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
	"      --runner NAME     only this runner: " RUNNERS "\n"
	"                        [runner] (it runs `true` confined under it,\n"
	"                        bounded by probeTimeoutMs; a missing or non-executable\n"
	"                        runner is not usable)\n"
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
	"                      [--runtime R | --kind K --runtime-class NAME --image IMAGE]\n"
	"                      [--json] [POLICY OPTIONS] -- PROGRAM [ARG...]\n"
	"Write the policy a run of PROGRAM would get for another engine, and run\n"
	"nothing. oci: DIR/config.json (OCI runtime-spec 1.0.2) and an empty\n"
	"DIR/rootfs, for 'runc run -b DIR ID': the host's / read-only, the writable\n"
	"roots, protected paths read-only, denyRead masked, a private /tmp, a network\n"
	"namespace with loopback only for --network off, the filtered environment, no\n"
	"capabilities, no new privileges, the launcher's seccomp deny-list and the\n"
	"limits given (cgroup resources as root, rlimits, the /tmp size). k8s:\n"
	"DIR/k8s.json (a v1 List: a Pod with runtimeClassName gvisor and, with the\n"
	"network off, a NetworkPolicy) and DIR/seccomp.json (its Localhost profile).\n"
	"Every export reports each clause: enforced, partial (held differently) or\n"
	"unenforced (the target cannot hold it), on stderr, one line each.\n"
	"\n"
	"Options:\n"
	"      --bundle DIR      the directory to write (made if missing; not inside a\n"
	"                        writable root)\n"
	"      --runtime runc|crun|runsc\n"
	"                        oci: the runtime the bundle is for (default runc;\n"
	"                        crun: the host's / bound entry by entry;\n"
	"                        runsc: run it with 'runsc --oci-seccomp\n"
	"                        --network=none' for the network off)\n"
	"      --kind Pod|SandboxTemplate\n"
	"                        k8s: the object that holds the pod (default Pod;\n"
	"                        SandboxTemplate: kubernetes-sigs/agent-sandbox's, the\n"
	"                        network as its networkPolicy)\n"
	"      --runtime-class NAME\n"
	"                        k8s: the pod's runtimeClassName (default gvisor), a\n"
	"                        DNS-1123 label: 1 to 63 of a-z, 0-9, '-'\n"
	"      --image IMAGE     k8s: the container's image (default a placeholder,\n"
	"                        debian:bookworm-slim, annotated to be replaced); 1 to\n"
	"                        512 printable ASCII bytes, no whitespace\n"
	"  -m, --mode MODE       read-only or workspace-write\n"
	"  -w, --workspace DIR   the workspace root (default: the config's, else the\n"
	"                        current directory)\n"
	"      --config FILE     JSON configuration (default: $CONFINE_CONFIG, else none)\n"
	"      --json            print {\"target\",\"bundle\",\"files\",\"enforcement\",\n"
	"                        \"clauses\":[{\"clause\",\"subject\",\"status\",\"layers\",\n"
	"                        \"reason\",\"needs\"}]} on stdout instead; when it fails,\n"
	"                        {\"error\":{\"code\",\"message\"}}\n"
	"  -h, --help            show this help\n"
	"\n" POLICY_OPTIONS LIMIT_OPTIONS
	"\n"
	"With --require-full an export that loses a clause is refused\n"
	"(SANDBOX_UNAVAILABLE, naming the clauses) and nothing is written.\n"
	"Exit status: 0 when written; 125 when confine fails.\n";

static const char help_options[] =
	"Usage: confine options [--json]\n"
	"Print the table of options (doc/SPEC.md 15, \"The table of options\"): one\n"
	"row per option, with its config key, CLI flag, Python and Node names, type,\n"
	"bounds, default and SPEC section. Runs nothing.\n"
	"\n"
	"Options:\n"
	"      --json            print the table as one JSON object, {\"options\":[{\"key\",\n"
	"                        \"flag\",\"short\",\"value\",\"python\",\"node\",\"type\",\n"
	"                        \"choices\",\"min\",\"max\",\"length\",\"default\",\"spec\",\n"
	"                        \"commands\"}]} (the bindings read a copy of it)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0; 125 when confine fails.\n";

/* The runners --runner takes, in the rung table's order: those whose
 * contract name confine_runner_parse accepts ("a, b, c or d"). */
static const char *runner_list(void) {
	static char list[160];
	const char *names[16];
	size_t n = 0;
	if (list[0])
		return list;
	for (unsigned r = CONFINE_RUNNER_NONE + 1; n < sizeof names / sizeof names[0]; r++) {
		const char *name = confine_runner_name((confine_runner)r);
		confine_runner parsed;
		if (!name)
			break;
		if (confine_runner_parse(name, &parsed, NULL) == 0)
			names[n++] = name;
	}
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			strncat(list, i + 1 == n ? " or " : ", ", sizeof list - strlen(list) - 1);
		strncat(list, names[i], sizeof list - strlen(list) - 1);
	}
	return list;
}

/* `text` with each RUNNERS replaced by runner_list(), made once per text
 * (the texts are constant); the text itself when it names none or memory
 * runs out. */
static const char *with_runners(const char *text, char **made) {
	const char *list = runner_list(), *at, *from = text;
	size_t count = 0, size;
	char *out;
	if (*made)
		return *made;
	for (at = strstr(text, RUNNERS); at; at = strstr(at + 1, RUNNERS))
		count++;
	if (count == 0)
		return text;
	size = strlen(text) + count * strlen(list) + 1;
	out = malloc(size);
	if (!out)
		return text;
	out[0] = '\0';
	for (at = strstr(from, RUNNERS); at; from = at + strlen(RUNNERS), at = strstr(from, RUNNERS)) {
		strncat(out, from, (size_t)(at - from));
		strcat(out, list);
	}
	strcat(out, from);
	*made = out;
	return out;
}

static const char *help_raw(cli_command command) {
	switch (command) {
	case CLI_COMMAND_NONE: return help_global;
	case CLI_COMMAND_RUN: return help_run;
	case CLI_COMMAND_BASH: return help_bash;
	case CLI_COMMAND_WRAP: return help_wrap;
	case CLI_COMMAND_PROBE: return help_probe;
	case CLI_COMMAND_FS: return help_fs;
	case CLI_COMMAND_EXPORT: return help_export;
	case CLI_COMMAND_OPTIONS: return help_options;
	}
	return help_global;
}

const char *cli_help_text(cli_command command) {
	static char *made[CLI_COMMAND_OPTIONS + 1];
	unsigned slot = (unsigned)command <= CLI_COMMAND_OPTIONS ? (unsigned)command : 0;
	return with_runners(help_raw(command), &made[slot]);
}
