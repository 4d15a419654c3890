// SPDX-License-Identifier: MIT
// Types of the confine Node package (index.js, CommonJS).

export type Mode = 'read-only' | 'workspace-write' | 'danger-full-access';
export type Runner = 'bwrap' | 'landlock' | 'seatbelt' | 'runnerCommand' | 'gvisor';
export type Enforcement = 'full' | 'partial';

/** The network allowlist (doc/SPEC.md 15): the network off but for these
 * hosts (`example.org`, `*.example.org`) through confine's proxy. */
export interface NetworkAllowlist {
  allow?: string[];
  /** Refused even where `allow` matches. */
  deny?: string[];
  /** Let an allowed name resolve to a loopback or private address. */
  allowLocal?: boolean;
}

/** Policy options beyond mode and workspace (the contract's config keys,
 * doc/SPEC.md 15). Each is forwarded as its CLI flag when the `confine` in
 * use lists it in its --help; otherwise the call rejects with
 * InvalidPolicyError naming it. A path list also takes one path. Every
 * string is checked first: a NUL byte or a lone surrogate is a UsageError,
 * a wrong type an InvalidPolicyError, each naming the option. */
export interface PolicyOptions {
  writableRoots?: string | string[];
  protectedPaths?: string | string[];
  defaultProtections?: boolean;
  /** Default protections for what runs later to leave writable, by name
   * (".bashrc", ".envrc", ".vscode/settings.json", ...: doc/SPEC.md 15). */
  unprotect?: string | string[];
  denyRead?: string | string[];
  network?: 'on' | 'off' | NetworkAllowlist;
  allowUnixSockets?: string | string[];
  env?: {
    inherit?: boolean | 'all' | 'none';
    include?: string[];
    exclude?: string[];
    set?: Record<string, string>;
    defaultExcludes?: boolean;
  };
  requireFull?: boolean;
  /** Resource limits (doc/SPEC.md 15, "Limits"): counts and seconds as
   * numbers, sizes as numbers of bytes or "256M"/"2G"; null or
   * "unlimited" lifts one. */
  limits?: {
    pids?: number | string | null;
    memory?: number | string | null;
    cpuSeconds?: number | string | null;
    fileSize?: number | string | null;
    temp?: number | string | null;
    openFiles?: number | string | null;
  };
}

export interface CallOptions extends PolicyOptions {
  /** Default: the config's mode, else read-only. */
  mode?: Mode;
  /** The workspace root; default the current directory. */
  workspace?: string;
  /** Where the command starts; default the workspace root. */
  cwd?: string;
  /** Pin the runner (used unprobed; fails closed if it cannot run). Another
   * value is an InvalidConfigError. */
  runner?: 'bwrap' | 'landlock' | 'seatbelt' | 'gvisor';
  /** A confine JSON configuration file (else $CONFINE_CONFIG). */
  config?: string;
  /** The environment `confine` (and so the command) gets; default process.env. */
  environ?: NodeJS.ProcessEnv;
  /** The confine command to use; default findConfine(). */
  bin?: string;
  /** Aborting sends SIGTERM to confine, which ends the command's tree. */
  signal?: AbortSignal;
}

export interface RunOptions extends CallOptions {
  /** Milliseconds, 1 to 600000 (past it a UsageError, never cut); default
   * none, as `confine run` and the Python package's run(). SIGTERM to
   * confine (which ends the command's tree), SIGKILL 3000 ms later. */
  timeout?: number;
  /** Piped to the command as is, any size; default /dev/null. */
  stdin?: string | Buffer | NodeJS.ReadableStream;
  /** Bytes kept of each of stdout and stderr; default 64000 (doc/SPEC.md 9). */
  maxOutput?: number;
  /** A staged run (doc/SPEC.md 21): every write lands in this directory
   * (absent or empty; made 0700) instead of the real tree; without `mode`,
   * workspace-write. The result's `stage` lists, applies or discards it. */
  stage?: string;
  /** The run's decider for hosts on neither network list (doc/SPEC.md 15,
   * "Ask"): asked once per host and port a run; true allows, false or
   * {allow: false, reason} refuses (the reason reaches the model). Throwing,
   * answering anything else or taking more than 20 s refuses, saying so.
   * It turns the network off around it unless `network` says otherwise.
   * wrap() takes none (UsageError). */
  askHost?: AskHost;
}

/** A run's decider: `askHost` of run() and bash(). */
export type AskHost = (host: string, port: number) =>
  boolean | { allow: boolean; reason?: string } | Promise<boolean | { allow: boolean; reason?: string }>;

/** What the network allowlist's proxy decided for one host and port. */
export interface NetworkDecision {
  host: string;
  port: number;
  allow: boolean;
  by: 'allowlist' | 'denylist' | 'decider' | 'off' | 'allowLocal';
}

export interface BashOptions extends CallOptions {
  /** Milliseconds, 1 to 600000 (past it a UsageError); default 120000. */
  timeout?: number;
  /** A staged run (doc/SPEC.md 21): every write lands in this directory
   * (absent or empty; made 0700) instead of the real tree; without `mode`,
   * workspace-write. The result's `stage` lists, applies or discards it. */
  stage?: string;
  /** The run's decider for hosts on neither network list (doc/SPEC.md 15,
   * "Ask"): asked once per host and port a run; true allows, false or
   * {allow: false, reason} refuses (the reason reaches the model). Throwing,
   * answering anything else or taking more than 20 s refuses, saying so.
   * It turns the network off around it unless `network` says otherwise.
   * wrap() takes none (UsageError). */
  askHost?: AskHost;
}

export interface Truncated {
  stdout: boolean;
  stderr: boolean;
}

export interface Result {
  /** null when a signal ended the command. */
  exitCode: number | null;
  /** The signal's name ("SIGTERM"), or null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: Truncated;
  /** A refused file access (the rendering's file marker): the runner's denial
   * dialect where it reads as one, or a file denial in `denials`. */
  denied: boolean;
  /** A refused network access with the policy's network off (the rendering's
   * network marker). */
  networkDenied: boolean;
  /** The limit that stopped the run, or null. */
  limit: { name: string; value: number; killed: boolean } | null;
  /** What the run used; null where the mechanism cannot tell. */
  usage: { peakMemory: number | null; peakProcesses: number | null; cpuSeconds: number | null };
  /** The refusals this run met, each with its object (a bounded list). */
  denials: Denial[];
  /** How many refusals the bounded `denials` left out. */
  denialsDropped: number;
  /** Every decision of the network allowlist's proxy, once per host and port. */
  networkDecisions: NetworkDecision[];
  /** How many decisions past the first 256 `networkDecisions` left out. */
  networkDecisionsDropped: number;
  timedOut: boolean;
  /** null for danger-full-access. */
  runner: Runner | null;
  enforcement: Enforcement | null;
  /** What of the policy the runner did not enforce (clause names). */
  unenforced: string[];
  /** What held the run: "bwrap", "landlock", "seccomp", "supervisor", ... */
  layers: string[];
  /** The report per clause: `enforcement` is "full" only when every one is enforced. */
  clauses: Clause[];
  /** Git hooks and settings a workspace-write run left behind (git would
   * run them unconfined). */
  gitHazards: GitHazard[];
  mode: Mode;
}

/** One clause of the resolved policy and how it held (doc/SPEC.md 15). */
export interface Clause {
  /** A policy key ("mode", "denyRead", ...) or a mechanism ("unix-sockets", "setid", ...). */
  clause: string;
  /** The path, pattern or value it is about; null for a whole mechanism. */
  subject: string | null;
  status: 'enforced' | 'partial' | 'unenforced';
  layers: string[];
  /** Why it did not hold (or, enforced, what to know). */
  reason: string | null;
  /** What on this host would enforce it ("bubblewrap", "Landlock ABI 6", ...). */
  needs: string | null;
}

/** One refusal the sandbox made, with its object (doc/SPEC.md 9). */
export interface Denial {
  /** "write", "read", "chmod", "chown", "utimes", "setxattr", "removexattr",
   * "setflags", "connect", "send" or "resolve". */
  op: string;
  /** The file, absolute; null for a network denial. */
  path: string | null;
  /** "host:port", or a host; null for a file denial. */
  address: string | null;
  /** "mode" (a write outside the writable roots), "denyRead", "protectedPaths",
   * "defaultProtections", "metadata", "setid", "unix-sockets" or "network". */
  clause: string;
  /** The run's decider's reason for a host it refused, else null. */
  reason: string | null;
}

export interface GitHazard {
  path: string;
  /** "hook", the setting's key ("core.hooksPath", ...), or "incomplete". */
  kind: string;
}

export interface RunResult extends Result {
  /** stdout exactly as the command wrote it (`stdout` is its UTF-8 text). */
  stdoutBuffer: Buffer;
  stderrBuffer: Buffer;
  /** What an agent's model would be shown of this run (doc/SPEC.md 9), as
   * the Python package's run() result carries it. */
  rendering: string;
  /** Present when the call was given `stage`. */
  stage?: Stage;
}

/** The canonical policy, as `confine wrap` echoes it. */
export interface Policy {
  mode: Mode;
  workspaceRoot: string;
  writableRoots: string[];
  protectedPaths: string[];
  defaultProtections: boolean;
  unprotect: string[];
  denyRead: string[];
  network: 'on' | 'off' | { allow: string[]; deny: string[]; allowLocal: boolean };
  allowUnixSockets: string[];
  env: { inherit: 'all' | 'none'; include: string[]; exclude: string[]; set: Record<string, string>; defaultExcludes: boolean };
  requireFull: boolean;
}

export interface BashResult extends Result {
  /** What an agent's model is shown: stdout, [stderr], markers. */
  rendering: string;
  timeoutMs: number;
  /** Present when the call was given `stage`. */
  stage?: Stage;
}

/** One change a staged run made (`confine stage diff --json`). */
export interface StageChange {
  /** Relative to the workspace root; absolute for another writable root. */
  path: string;
  change: 'added' | 'modified' | 'deleted' | 'renamed' | 'mode' | 'symlink';
  /** The old path of a rename, else null. */
  from: string | null;
  /** What the stage holds (the real one for `deleted`): file, directory,
   * link, other. */
  type: 'f' | 'd' | 'l' | 'o';
  size: number;
  /** The permission bits. */
  mode: number;
  binary: boolean;
  /** Under a `.git` directory (listed after the others). */
  git: boolean;
}

/** What apply did with one path. */
export interface StageApplied {
  path: string;
  outcome: 'applied' | 'conflict' | 'refused' | 'failed';
  message: string | null;
}

/** A staged run's changes (doc/SPEC.md 21), over `confine stage`. */
export class Stage {
  constructor(dir: string, options?: Pick<CallOptions, 'environ' | 'bin'>);
  readonly path: string;
  /** Every change against the real tree as it is now (read on each use). */
  readonly changes: Promise<StageChange[]>;
  /** A unified diff of the changes that `git apply` accepts. */
  patch(): Promise<string>;
  /** Applies all changes, or those at or under `paths`; conflicts (unless
   * `overwrite`) and protected paths are reported, not applied; the stage
   * is kept. */
  apply(paths?: string[] | null, options?: { overwrite?: boolean }): Promise<StageApplied[]>;
  /** Removes the stage and all it holds. */
  discard(): Promise<void>;
}

export interface Rule {
  allowedExitCodes: number[];
  fatalSignatures: string[];
  informationalLines: string[];
}

export interface Wrap {
  /** Spawn this instead of the caller's argv (detached: true). */
  argv: string[];
  /** Exactly the environment to spawn it with (the policy's env filter). */
  env: NodeJS.ProcessEnv;
  runner: Runner | null;
  enforcement: Enforcement | null;
  /** The runner's denial signatures. */
  dialect: string[];
  /** The runner's runner-failure rules. */
  rules: Rule[];
  mode: Mode;
  workspaceRoot: string;
  cwd: string;
  unenforced: string[];
  /** What holds the clauses ("bwrap", "landlock", "seccomp", "supervisor", ...). */
  layers: string[];
  clauses: Clause[];
  policy: Policy;
  /** Whether a finished run was a denial (status null for a signal death). */
  denied(status: number | null, stderr: string | Buffer): boolean;
  /** The runner's failure line when the runner failed before the command ran. */
  runnerFailure(status: number | null, stderr: string | Buffer): string | null;
}

export interface Verdict {
  usable: boolean;
  runner: Runner | null;
  enforcement: Enforcement | null;
  unenforced: string[];
  layers: string[];
  clauses: Clause[];
  /** Whether the launcher's supervisor can run on this host. */
  supervisor: boolean;
  landlockAbi: number | null;
  runnerPath: string | null;
  /** Why no rung is usable, or null. */
  reason: string | null;
  runnerFailure: string | null;
}

export function run(argv: string[], options?: RunOptions): Promise<RunResult>;
export function bash(command: string, options?: BashOptions): Promise<BashResult>;
export function wrap(argv: string[], options?: CallOptions): Promise<Wrap>;
export function probe(options?: Pick<CallOptions, 'runner' | 'config' | 'environ' | 'bin'>): Promise<Verdict>;
export function version(options?: Pick<CallOptions, 'environ' | 'bin'>): Promise<string>;
export function findConfine(env?: NodeJS.ProcessEnv): string;
export function render(result: Result, timeoutMs: number): string;
/** SPEC 8's denial rule over a wrap's `dialect`, as the library answers. */
export function classifyDenial(dialect: string[], status: number | null, stderr: string | Buffer): boolean;
/** SPEC 8's runner-failure rule over a wrap's `rules`: the line, or null. */
export function classifyRunnerFailure(rules: Rule[], status: number | null, stderr: string | Buffer): string | null;

export class ConfineError extends Error {
  /** USAGE, INVALID_CONFIG, INVALID_POLICY, SANDBOX_UNAVAILABLE,
   * SPAWN_FAILED, SYSTEM_ERROR (doc/SPEC.md 16), or CONFINE_NOT_FOUND. */
  code: string;
  exitStatus: number | null;
  /** The option of the call at fault (`workspace`, `denyRead`,
   * `network.allow`, ...), or null. */
  option: string | null;
}
export class SandboxUnavailableError extends ConfineError {
  code: 'SANDBOX_UNAVAILABLE';
  /** The runner's failure line, or null. */
  runnerFailure: string | null;
}
export class InvalidPolicyError extends ConfineError {
  code: 'INVALID_POLICY';
}
export class InvalidConfigError extends ConfineError {
  code: 'INVALID_CONFIG';
}
export class UsageError extends ConfineError {
  code: 'USAGE';
}
/** The program was not found (exitStatus 127) or is not executable (126). */
export class SpawnFailedError extends ConfineError {
  code: 'SPAWN_FAILED';
}

export const POLICY_OPTIONS: Record<keyof PolicyOptions, { flags: string[] }>;
export const MODES: Mode[];

/** A directory entry of fs.list(). */
export interface FsEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
}

/** What fs.stat() says of a name (a symlink is not followed). */
export interface FsInfo {
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  mode: number;
  nlink: number;
  mtime: number;
}

/** The harness's own file tools under a run's policy (doc/SPEC.md 19). */
export declare const fs: {
  read(file: string, options?: RunOptions & { maxBytes?: number }): Promise<Buffer>;
  /** Each write operation resolves to the gitHazards it left ([] when none). */
  write(file: string, data: string | Buffer, options?: RunOptions): Promise<GitHazard[]>;
  append(file: string, data: string | Buffer, options?: RunOptions): Promise<GitHazard[]>;
  list(dir?: string, options?: RunOptions): Promise<FsEntry[]>;
  stat(file: string, options?: RunOptions): Promise<FsInfo>;
  mkdir(dir: string, options?: RunOptions): Promise<GitHazard[]>;
  remove(file: string, options?: RunOptions): Promise<GitHazard[]>;
  rename(from: string, to: string, options?: RunOptions): Promise<GitHazard[]>;
};

/** A harness file operation the policy refuses: the message names the path and the clause. */
export class DeniedError extends ConfineError {}
/** A harness file operation the filesystem refuses. */
export class FsError extends ConfineError {}
