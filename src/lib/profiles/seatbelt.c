/* SPDX-License-Identifier: MIT */
/* placeholder: filled by its module owner */
typedef int cf_placeholder_unused;
