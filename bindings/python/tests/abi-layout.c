/* SPDX-License-Identifier: MIT */
/* Prints the size and field offsets of every public struct the Python
 * package declares with ctypes (bindings/python/confine/_ffi.py), as JSON:
 * the Python suite compares them, so a change of confine.h that _ffi.py
 * does not mirror fails a test instead of corrupting memory. */
#include <stddef.h>
#include <stdio.h>
#include <confine.h>

#define FIELD(s, f) printf("%s\"%s\": %zu", first ? "" : ", ", #f, offsetof(struct s, f)), first = 0
#define BEGIN(s) printf("%s\"%s\": {\"size\": %zu, \"fields\": {", n++ ? ", " : "", #s, sizeof(struct s)), first = 1
#define END() printf("}}")

int main(void) {
	int n = 0, first;
	printf("{");
	BEGIN(confine_error);
	FIELD(confine_error, code);
	FIELD(confine_error, stage);
	FIELD(confine_error, sys_errno);
	FIELD(confine_error, message);
	END();
	BEGIN(confine_env_policy);
	FIELD(confine_env_policy, inherit);
	FIELD(confine_env_policy, include);
	FIELD(confine_env_policy, exclude);
	FIELD(confine_env_policy, set);
	FIELD(confine_env_policy, default_excludes);
	END();
	BEGIN(confine_policy);
	FIELD(confine_policy, mode);
	FIELD(confine_policy, workspace_root);
	FIELD(confine_policy, writable_roots);
	FIELD(confine_policy, protected_paths);
	FIELD(confine_policy, default_protections);
	FIELD(confine_policy, deny_read);
	FIELD(confine_policy, network);
	FIELD(confine_policy, allow_unix_sockets);
	FIELD(confine_policy, env);
	FIELD(confine_policy, require_full);
	FIELD(confine_policy, private_temp);
	FIELD(confine_policy, temp_dir);
	FIELD(confine_policy, network_allow);
	FIELD(confine_policy, network_deny);
	FIELD(confine_policy, network_allow_local);
	END();
	BEGIN(confine_rule);
	FIELD(confine_rule, allowed_exit_codes);
	FIELD(confine_rule, n_allowed_exit_codes);
	FIELD(confine_rule, fatal_signatures);
	FIELD(confine_rule, informational_lines);
	END();
	BEGIN(confine_argv);
	FIELD(confine_argv, argv);
	FIELD(confine_argv, argc);
	FIELD(confine_argv, runner);
	FIELD(confine_argv, runner_facts);
	FIELD(confine_argv, enforcement);
	FIELD(confine_argv, denial_signatures);
	FIELD(confine_argv, rules);
	FIELD(confine_argv, n_rules);
	FIELD(confine_argv, policy);
	FIELD(confine_argv, unenforced);
	FIELD(confine_argv, spawn_flags);
	FIELD(confine_argv, exec_fd);
	FIELD(confine_argv, inherit_fd);
	FIELD(confine_argv, inherit_fd_at);
	FIELD(confine_argv, status_fd_at);
	FIELD(confine_argv, clauses);
	FIELD(confine_argv, n_clauses);
	END();
	BEGIN(confine_verdict);
	FIELD(confine_verdict, usable);
	FIELD(confine_verdict, runner);
	FIELD(confine_verdict, enforcement);
	FIELD(confine_verdict, landlock_abi);
	FIELD(confine_verdict, runner_path);
	FIELD(confine_verdict, runner_failure);
	END();
	BEGIN(confine_local_config);
	FIELD(confine_local_config, runner_command);
	FIELD(confine_local_config, runner_failure_signatures);
	FIELD(confine_local_config, probe_timeout_ms);
	FIELD(confine_local_config, landlock_launcher);
	FIELD(confine_local_config, pin);
	FIELD(confine_local_config, path);
	FIELD(confine_local_config, platform);
	END();
	BEGIN(confine_stdio);
	FIELD(confine_stdio, kind);
	FIELD(confine_stdio, fd);
	END();
	BEGIN(confine_spawn_options);
	FIELD(confine_spawn_options, confined);
	FIELD(confine_spawn_options, argv);
	FIELD(confine_spawn_options, workdir);
	FIELD(confine_spawn_options, envp);
	FIELD(confine_spawn_options, stdio);
	FIELD(confine_spawn_options, capture_limit);
	FIELD(confine_spawn_options, timeout_ms);
	END();
	BEGIN(confine_outcome);
	FIELD(confine_outcome, signaled);
	FIELD(confine_outcome, exit_code);
	FIELD(confine_outcome, signal);
	FIELD(confine_outcome, timed_out);
	FIELD(confine_outcome, stdout_data);
	FIELD(confine_outcome, stdout_len);
	FIELD(confine_outcome, stdout_truncated);
	FIELD(confine_outcome, stderr_data);
	FIELD(confine_outcome, stderr_len);
	FIELD(confine_outcome, stderr_truncated);
	FIELD(confine_outcome, confined);
	FIELD(confine_outcome, mode);
	FIELD(confine_outcome, runner);
	FIELD(confine_outcome, enforcement);
	FIELD(confine_outcome, denied);
	FIELD(confine_outcome, runner_failed);
	FIELD(confine_outcome, runner_failure_detail);
	FIELD(confine_outcome, unenforced);
	FIELD(confine_outcome, git_hazards);
	FIELD(confine_outcome, n_git_hazards);
	FIELD(confine_outcome, clauses);
	FIELD(confine_outcome, n_clauses);
	END();
	BEGIN(confine_clause);
	FIELD(confine_clause, clause);
	FIELD(confine_clause, subject);
	FIELD(confine_clause, status);
	FIELD(confine_clause, layers);
	FIELD(confine_clause, reason);
	FIELD(confine_clause, needs);
	END();
	BEGIN(confine_git_hazard);
	FIELD(confine_git_hazard, path);
	FIELD(confine_git_hazard, kind);
	END();
	BEGIN(confine_bash_options);
	FIELD(confine_bash_options, command);
	FIELD(confine_bash_options, policy);
	FIELD(confine_bash_options, workdir);
	FIELD(confine_bash_options, envp);
	FIELD(confine_bash_options, timeout_ms);
	FIELD(confine_bash_options, max_output);
	END();
	BEGIN(confine_bash_result);
	FIELD(confine_bash_result, outcome);
	FIELD(confine_bash_result, timeout_ms);
	FIELD(confine_bash_result, error);
	END();
	printf("}\n");
	return 0;
}
