/* SPDX-License-Identifier: MIT */
/* The roots a staged run stages (stage-roots.h). */
#include "profiles/stage-roots.h"

#include "policy-internal.h"

int cf_stage_roots(const cf_plan *plan, char ***ret) {
	int r = 0;
	for (size_t i = 0; r == 0 && plan->writable[i]; i++) {
		bool inside = false;
		for (size_t j = 0; j < i; j++)
			inside = inside || cf_path_at_or_under(plan->writable[i], plan->writable[j]);
		if (!inside)
			r = cf_strv_push(ret, plan->writable[i]);
	}
	return r;
}
