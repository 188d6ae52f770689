// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report extract: the JSON documents of a guest's console log,
 * between the bench program's marker lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MARK_BEGIN	"# bench-json-begin "
#define MARK_END	"# bench-json-end "

static char *skip_blanks(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * The documents of one console log.  init indents the program's lines;
 * each line of a document is a "# " diagnostic.  Lines between the
 * markers that are not (a kernel message printed meanwhile) are left
 * out.  A document cut short (the guest died) or unparsable is reported
 * in @errors and left out.
 */
json_t *extract(const char *path, json_t *errors)
{
	json_t *docs = json_array();
	char *line = NULL, *buf = NULL, name[128] = "";
	size_t cap = 0, len = 0, bufcap = 0;
	bool inside = false;
	ssize_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		json_array_append_new(errors, json_sprintf("%s: %s", path, strerror(errno)));
		return docs;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *s;

		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		s = skip_blanks(line);
		if (!strncmp(s, MARK_BEGIN, strlen(MARK_BEGIN))) {
			if (inside)
				json_array_append_new(errors, json_sprintf("%s: document %s cut short",
									   path, name));
			snprintf(name, sizeof(name), "%s", s + strlen(MARK_BEGIN));
			inside = true;
			len = 0;
			continue;
		}
		if (!inside)
			continue;
		if (!strncmp(s, MARK_END, strlen(MARK_END))) {
			json_error_t err;
			json_t *doc;

			inside = false;
			doc = json_loadb(buf ? buf : "", len, 0, &err);
			if (!doc) {
				json_array_append_new(errors, json_sprintf("%s: document %s: %s (line %d)",
									   path, name, err.text, err.line));
				continue;
			}
			json_array_append_new(docs, doc);
			continue;
		}
		if (*s != '#')
			continue;
		s++;
		if (*s == ' ')
			s++;
		if (len + strlen(s) + 2 > bufcap) {
			bufcap = (len + strlen(s) + 2) * 2;
			buf = realloc(buf, bufcap);
			if (!buf)
				die("out of memory");
		}
		len += sprintf(buf + len, "%s\n", s);
	}
	if (inside)
		json_array_append_new(errors, json_sprintf("%s: document %s cut short", path, name));
	fclose(f);
	free(line);
	free(buf);
	return docs;
}

int cmd_extract(int argc, char **argv)
{
	json_t *errors = json_array(), *docs, *e;
	size_t i;
	int status;

	docs = extract(argv[0], errors);
	json_dumpf(docs, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	putchar('\n');
	json_array_foreach(errors, i, e)
		fprintf(stderr, "bench-report: %s\n", json_string_value(e));
	status = json_array_size(errors) ? 1 : 0;
	json_decref(docs);
	json_decref(errors);
	return status;
}
