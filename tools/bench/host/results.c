// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report: errors, and the JSON files it reads and writes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench-report: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

double num(json_t *obj, const char *key)
{
	return json_number_value(json_object_get(obj, key));
}

json_t *variant_summary(json_t *e, json_t *v)
{
	return json_object_get(json_object_get(e, "variants"), json_string_value(v));
}

json_t *load(const char *path)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);

	if (!doc)
		die("%s: %s (line %d)", path, err.text, err.line);
	return doc;
}

/* Through a temporary file renamed over @path: whole or not at all. */
void write_whole(const char *path, json_t *doc)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, getpid());
	if (json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(10))) {
		unlink(tmp);
		die("cannot write %s", tmp);
	}
	if (rename(tmp, path)) {
		unlink(tmp);
		die("rename %s: %s", path, strerror(errno));
	}
}
