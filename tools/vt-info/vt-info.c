/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-info: prints vt's version, the timer it would use and every variable in force. */
#include "vt_clock.h"
#include "vt_config.h"
#include "vt_log.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *type_name(const struct vt_cfg_entry *e)
{
	switch (e->type) {
	case VT_CFG_BOOL: return "yes/no";
	case VT_CFG_SIZE: return "size";
	case VT_CFG_INT: return "integer";
	case VT_CFG_STRING: return "string";
	case VT_CFG_ENUM: return "choice";
	}
	return "?";
}

/* The table of docs/environment.md, made from the same table the runtime parses. */
static void print_doc(void)
{
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	printf("| variable | type | default | example | meaning |\n");
	printf("|---|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		char range[96] = "";
		if (t[i].type == VT_CFG_INT)
			snprintf(range, sizeof(range), " (%ld to %ld)", t[i].min, t[i].max);
		if (t[i].type == VT_CFG_ENUM) {
			size_t k = (size_t)snprintf(range, sizeof(range), " (");
			for (int c = 0; t[i].choices[c] && k < sizeof(range); c++)
				k += (size_t)snprintf(range + k, sizeof(range) - k, "%s%s",
						      c ? ", " : "", t[i].choices[c]);
			if (k < sizeof(range))
				snprintf(range + k, sizeof(range) - k, ")");
		}
		printf("| `%s` | %s%s | %s | `%s` | %s |\n", t[i].name, type_name(&t[i]), range,
		       t[i].def ? t[i].def : "(unset)", t[i].example, t[i].help);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: vt-info [--doc] [--help] [--version]\n"
		   "Prints vt's version, the timer a traced program would use, and every\n"
		   "VT_* variable with the value in force in this environment.\n"
		   "  --doc      print the variables as the Markdown table of docs/environment.md\n"
		   "  --version  print the version\n"
		   "Exit status: 0, or 1 when a variable has a bad value (the error says which).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "doc", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			print_doc();
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("vt-info (vt) %s\n", VT_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vt-info: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	int rc = vt_config_load() < 0 ? 1 : 0;
	vt_clock_init(vt_cfg.timer);
	/* A short calibration interval is enough to show the rate. */
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	vt_clock_finish();

	printf("vt %s\n", VT_VERSION);
	printf("timer: %s (%s); invariant TSC: %s; %llu ticks per second\n", vt_clock_name(),
	       vt_clock_reason(), vt_clock_tsc_invariant() ? "yes" : "no",
	       (unsigned long long)vt_clock_resolution());
	printf("\nvariables in force:\n");
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	for (size_t i = 0; i < n; i++) {
		char val[512];
		vt_config_format(&t[i], val, sizeof(val));
		const char *raw = vt_config_raw(&t[i]);
		printf("  %-20s %-16s %s\n", t[i].name, val, raw ? "(environment)" : "(default)");
	}
	return rc;
}
