// SPDX-License-Identifier: GPL-2.0
/*
 * bench [-w SECONDS] [-d SECONDS] [-p PRODUCERS] [-a] [-r REPEAT] [-f]
 *       [-l] [NAME-GLOB...]
 *
 * The kit's benchmark runner (see bench.h).  Runs every benchmark whose
 * name matches a glob (all by default; globs also come from $BENCH,
 * comma-separated, and options from $BENCH_ARGS, comma- or
 * space-separated, so that both fit on a kernel command line as
 * kit.env.BENCH= and kit.env.BENCH_ARGS=).  For each: a fresh cgroup v2
 * memory cgroup, setup, producer threads, one sample a second for -w
 * seconds of warm-up (thrown away) and -d seconds of measurement, then
 * the correctness checks.  Output, all of it KTAP (diagnostics are
 * "# " lines):
 *
 *   # overwrite: iter  4: per-prod-op 7.91 k/s, memory usage 2.31 MiB
 *   # overwrite: Summary: per-prod-op 7.90 ± 0.02 k/s, ...
 *   # bench-json-begin overwrite
 *   # { ...the benchmark's JSON document... }
 *   # bench-json-end overwrite
 *   ok 1 overwrite
 *
 * A benchmark is "not ok" only when a check fails, never for its
 * figures.  Before them, a check that the memory sampler sees what it
 * must ("memory_sampler").  Exit status: 0, or 1 when anything failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <jansson.h>

#include "clock.h"
#include "bench.h"
#include "stats.h"
#include "htab_util.h"
#include "ktap.h"
#include "memcg.h"
#include "../progs/bench_run.h"

#define MAX_SAMPLES	3600
#define MAX_LATENCIES	262144	/* timings kept per operation (2 MiB of doubles) */
#define MAX_GLOBS	32
#define MAX_ARGS	64
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define MA_COUNTERS	"/sys/kernel/debug/bpf_mem_alloc"

static const struct bench *benchs[] = {
	&bench_no_op,
	&bench_overwrite,
	&bench_batch_add_batch_del,
	&bench_add_del_on_diff_cpu,
	&bench_hash_kmalloc,
	&bench_hash_prealloc,
	&bench_hash_full_update,
	&bench_percpu_alloc_free,
	&bench_rcu_gp,
};

#define NR_BENCHS	ARRAY_SIZE(benchs)

struct bench_env env;

/* The benchmark being run. */
static struct {
	const struct bench *b;
	__u64 runs[BENCH_MAX_PRODUCERS];	/* each producer's program runs, its own slot */
	json_t *checks;
	int checks_failed;
	int failed;		/* bench_fail() calls, from any thread */
	char first_error[512];	/* the first of them */
	long long setup_growth;	/* memory.current growth during setup() */
	pthread_mutex_t lock;
} cur = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * The running benchmark's timings (bench_latency()), under cur.lock:
 * kept while the runner measures, counted beyond MAX_LATENCIES.
 */
static struct {
	double *v[BENCH_MAX_LATENCIES];
	long kept[BENCH_MAX_LATENCIES];
	long seen[BENCH_MAX_LATENCIES];
	bool measuring;
} lat;

static bool stop;

static void sleep_until(double t)
{
	struct timespec ts = {
		.tv_sec = (time_t)t,
		.tv_nsec = (long)((t - (time_t)t) * 1e9),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void bench_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&cur.lock);
	if (!cur.failed++)
		snprintf(cur.first_error, sizeof(cur.first_error), "%s", msg);
	pthread_mutex_unlock(&cur.lock);
	ktap_diag("%s: error: %s", cur.b ? cur.b->name : "bench", msg);
}

void bench_check(bool ok, const char *name, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	ktap_diag("%s: check %s: %s: %s", cur.b->name, name, ok ? "ok" : "FAILED", detail);
	json_array_append_new(cur.checks, json_pack("{s:s, s:b, s:s}", "name", name,
						    "ok", ok, "detail", detail));
	cur.checks_failed += !ok;
}

void bench_latency(int i, double us)
{
	if (!__atomic_load_n(&lat.measuring, __ATOMIC_RELAXED) || i < 0 ||
	    i >= cur.b->nr_latencies || !lat.v[i])
		return;
	pthread_mutex_lock(&cur.lock);
	lat.seen[i]++;
	if (lat.kept[i] < MAX_LATENCIES)
		lat.v[i][lat.kept[i]++] = us;
	pthread_mutex_unlock(&cur.lock);
}

int bench_repeat(void)
{
	if (env.repeat > 0)
		return env.repeat;
	return cur.b->repeat > 0 ? cur.b->repeat : 1;
}

int bench_test_run(struct bpf_program *prog, __u32 producer, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = repeat);
	__u32 pkt[16] = { producer };	/* little-endian, as the programs read it */
	int err;

	opts.data_in = pkt;
	opts.data_size_in = sizeof(pkt);
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts) ? -errno : 0;

	if (err)
		bench_fail("test run of %s failed: %s", bpf_program__name(prog), strerror(-err));
	else if (opts.retval != BENCH_DONE)
		bench_fail("%s returned %u, not BENCH_DONE", bpf_program__name(prog), opts.retval);
	if (err || opts.retval != BENCH_DONE)
		return err ?: -EINVAL;
	if (producer < BENCH_MAX_PRODUCERS)
		cur.runs[producer] += repeat;
	return 0;
}

__u64 bench_runs(int first, int step)
{
	__u64 runs = 0;
	int i;

	for (i = first; i < env.producers; i += step)
		runs += cur.runs[i];
	return runs;
}

/* libbpf's messages (a verifier log too) as diagnostics: the output stays KTAP. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[8192], *line, *save;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ktap_diag("%s", line);
	return 0;
}

/* --- memory cgroup ------------------------------------------------------- */

/*
 * The allocator's own counters when the kernel has them (the
 * reuse-after-gp variant's debugfs files), as numbers by file name.
 */
static json_t *ma_counters(void)
{
	json_t *obj = json_object();
	struct dirent *de;
	DIR *d = opendir(MA_COUNTERS);

	if (!d)
		return obj;
	while ((de = readdir(d))) {
		char path[512], buf[64];
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", MA_COUNTERS, de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		json_object_set_new(obj, de->d_name, json_integer(strtoll(buf, NULL, 0)));
	}
	closedir(d);
	return obj;
}

static json_t *ma_counters_delta(json_t *before, json_t *after)
{
	json_t *delta = json_object(), *v;
	const char *k;

	json_object_foreach(after, k, v)
		json_object_set_new(delta, k, json_integer(json_integer_value(v) -
				    json_integer_value(json_object_get(before, k))));
	return delta;
}

/* --- output ---------------------------------------------------------------- */

/*
 * One JSON document per benchmark, each line a "# " diagnostic so that
 * the console stays KTAP; the host takes the lines between the markers.
 * Indented, so that no line comes near init's 4096-byte line limit.
 */
static void print_json(const char *name, json_t *doc)
{
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	char *line, *save;

	if (!text) {
		ktap_diag("%s: cannot format the JSON document", name);
		return;
	}
	/* stdout's own lock: no ktap_diag() line of a producer gets in between. */
	flockfile(stdout);
	printf("# bench-json-begin %s\n", name);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	printf("# bench-json-end %s\n", name);
	fflush(stdout);
	funlockfile(stdout);
	free(text);
}

static void print_summary(const struct bench *b, const struct stats *st,
			  struct stats mem, double peak)
{
	char line[1024];
	int i, n;

	n = snprintf(line, sizeof(line), "%s: Summary:", b->name);
	for (i = 0; i < b->nr_metrics; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s %.2f \u00b1 %.2f %s,",
			      b->metrics[i].label, st[i].mean, st[i].stddev, b->metrics[i].unit);
	snprintf(line + n, sizeof(line) - n,
		 " memory usage %.2f \u00b1 %.2f MiB, peak memory usage %.2f MiB",
		 mem.mean, mem.stddev, peak);
	ktap_diag("%s", line);
}

/* --- per-operation timings ------------------------------------------------ */

/*
 * Buffers for the benchmark's timings, written through once here so that
 * their pages are charged to the runner's cgroup, not to the benchmark's.
 */
static int latencies_alloc(const struct bench *b)
{
	int i;

	memset(&lat, 0, sizeof(lat));
	for (i = 0; i < b->nr_latencies && i < BENCH_MAX_LATENCIES; i++) {
		lat.v[i] = malloc(MAX_LATENCIES * sizeof(double));
		if (!lat.v[i])
			return -ENOMEM;
		memset(lat.v[i], 0, MAX_LATENCIES * sizeof(double));
	}
	return 0;
}

static void latencies_free(void)
{
	int i;

	for (i = 0; i < BENCH_MAX_LATENCIES; i++)
		free(lat.v[i]);
	memset(&lat, 0, sizeof(lat));
}

/*
 * Each timed operation as median, p90 and max over the measured seconds,
 * with its count: a diagnostic line each, and the document's "latency".
 * Also the check that every operation was timed at least once.
 */
static json_t *latencies_report(const struct bench *b)
{
	json_t *arr = json_array();
	char counts[256] = "";
	int i, n = 0;
	bool all = true;

	for (i = 0; i < b->nr_latencies; i++) {
		const struct bench_metric *l = &b->latencies[i];
		long k = lat.kept[i];
		struct stats_ranks r = stats_ranks_of(lat.v[i], k);
		struct stats st = stats_of(lat.v[i], k);

		if (k < lat.seen[i])
			ktap_diag("%s: %s: %ld timings, the first %ld kept", b->name, l->label,
				  lat.seen[i], k);
		ktap_diag("%s: latency %s: median %.1f us, p90 %.1f us, max %.1f us, %ld samples",
			  b->name, l->label, r.median, r.p90, r.max, lat.seen[i]);
		json_array_append_new(arr, json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:I, s:I}",
				      "name", l->name, "label", l->label, "min_us", r.min,
				      "median_us", r.median, "p90_us", r.p90, "max_us", r.max,
				      "mean_us", st.mean, "samples", (json_int_t)lat.seen[i],
				      "kept", (json_int_t)k));
		n += snprintf(counts + n, sizeof(counts) - n, "%s%s %ld", i ? ", " : "", l->name,
			      lat.seen[i]);
		all &= lat.seen[i] > 0;
	}
	bench_check(all, "every_operation_timed", "timings over the measured seconds: %s", counts);
	return arr;
}

/* --- running one benchmark ----------------------------------------------- */

struct producer {
	pthread_t thread;
	int id;
};

static void *producer_thread(void *arg)
{
	struct producer *p = arg;

	if (env.affinity) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(p->id % env.nr_cpus, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			bench_fail("producer %d: sched_setaffinity(CPU %d): %s",
				   p->id, p->id % env.nr_cpus, strerror(errno));
			return NULL;
		}
	}
	if (cur.b->produce) {
		while (cur.b->produce(p->id, &stop))
			;
		return NULL;
	}
	while (!bench_stopping(&stop) &&
	       !bench_test_run(cur.b->prog(p->id), p->id, bench_repeat()))
		;
	return NULL;
}

static int start_producers(struct producer *p)
{
	int i, err;

	__atomic_store_n(&stop, false, __ATOMIC_RELAXED);
	for (i = 0; i < env.producers; i++) {
		p[i].id = i;
		err = pthread_create(&p[i].thread, NULL, producer_thread, &p[i]);
		if (err) {
			bench_fail("pthread_create: %s", strerror(err));
			return i;
		}
	}
	return env.producers;
}

static void stop_producers(struct producer *p, int n)
{
	int i;

	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		pthread_join(p[i].thread, NULL);
}

enum result { RESULT_OK, RESULT_SKIP, RESULT_FAIL };

static json_t *env_json(bool forced)
{
	return json_pack("{s:i, s:i, s:i, s:b, s:i, s:i, s:b}",
			 "warmup_s", env.warmup, "duration_s", env.duration,
			 "producers", env.producers, "affinity", env.affinity,
			 "repeat", bench_repeat(), "nr_cpus", env.nr_cpus, "forced", forced);
}

/* The memory sampler's figures must be possible ones. */
static void check_memory(const double *mem, int n, double peak)
{
	struct sysinfo si;
	double total, max = 0;
	int i, zero = 0;

	sysinfo(&si);
	total = MiB((double)si.totalram * si.mem_unit);
	for (i = 0; i < n; i++) {
		zero += mem[i] <= 0;
		max = mem[i] > max ? mem[i] : max;
	}
	bench_check(n > 0 && !zero, "memory_current_sampled",
		    "%d samples of memory.current, %d of them not above 0", n, zero);
	bench_check(peak >= max && peak <= total, "memory_peak_sane",
		    "memory.peak %.2f MiB, highest sample %.2f MiB, RAM %.0f MiB",
		    peak, max, total);
}

static enum result run_bench(const struct bench *b, char *reason, size_t reason_len)
{
	static double values[BENCH_MAX_METRICS][MAX_SAMPLES], mem[MAX_SAMPLES];
	struct producer producers[BENCH_MAX_PRODUCERS];
	struct stats st[BENCH_MAX_METRICS], mem_st;
	json_t *doc, *samples, *metrics, *ma_before;
	const struct bench_env saved = env;
	const char *why = NULL;
	char cgroup[128];
	double start, prev, peak = 0;
	int i, m, nr_producers, kept = 0, iters;
	bool forced = false;
	enum result res;

	cur.b = b;
	memset(cur.runs, 0, sizeof(cur.runs));
	cur.checks = json_array();
	cur.checks_failed = 0;
	cur.failed = 0;
	cur.first_error[0] = '\0';
	cur.setup_growth = 0;
	doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "bench", b->name, "group", b->group,
			"title", b->title, "upstream", b->upstream, "about", b->about);
	ktap_diag("%s: %s (upstream: %s)", b->name, b->about, b->upstream);

	if (b->validate)
		why = b->validate();
	if (why && env.force) {
		ktap_diag("%s: would be skipped (%s); run anyway (-f), its figures mean nothing", b->name, why);
		forced = true;
		why = NULL;
	}
	if (why) {
		snprintf(reason, reason_len, "%s", why);
		json_object_set_new(doc, "env", env_json(false));
		json_object_set_new(doc, "skip_reason", json_string(why));
		res = RESULT_SKIP;
		goto out;
	}
	if (env.producers > BENCH_MAX_PRODUCERS)
		env.producers = BENCH_MAX_PRODUCERS;
	json_object_set_new(doc, "env", env_json(forced));

	if (latencies_alloc(b)) {
		bench_fail("no memory for %d x %d timings", b->nr_latencies, MAX_LATENCIES);
		snprintf(reason, reason_len, "%s", cur.first_error);
		latencies_free();
		res = RESULT_FAIL;
		goto out;
	}
	snprintf(cgroup, sizeof(cgroup), "kit-bench-%s-%d", b->name, getpid());
	if (memcg_enter(cgroup)) {
		bench_fail("cannot enter memory cgroup %s/%s", CGROUP_ROOT, cgroup);
		snprintf(reason, reason_len, "%s", cur.first_error);
		latencies_free();
		res = RESULT_FAIL;
		goto out;
	}
	ma_before = ma_counters();
	prev = memcg_current();
	if (b->setup()) {
		if (!cur.failed)
			bench_fail("setup failed");
		snprintf(reason, reason_len, "setup: %s", cur.first_error);
		memcg_leave(cgroup);
		json_decref(ma_before);
		latencies_free();
		res = RESULT_FAIL;
		goto out;
	}
	cur.setup_growth = memcg_current() - (long long)prev;

	nr_producers = start_producers(producers);
	iters = env.warmup + env.duration;
	start = prev = mono_s();
	samples = json_array();
	for (i = 0; i < iters && !__atomic_load_n(&cur.failed, __ATOMIC_RELAXED); i++) {
		struct bench_sample s = { { 0 } };
		double t, secs, cur_mem;
		json_t *js;

		/* Timings of this second count once the warm-up is over. */
		__atomic_store_n(&lat.measuring, i >= env.warmup, __ATOMIC_RELAXED);
		sleep_until(start + i + 1);
		t = mono_s();
		secs = t - prev;
		prev = t;
		b->measure(&s, secs);
		cur_mem = MiB(memcg_current());
		{
			char line[512];
			int n = snprintf(line, sizeof(line), "%s: iter %3d (%+8.3f ms)%s:", b->name, i + 1,
					 (secs - 1) * 1000, i < env.warmup ? " warm-up" : "");

			for (m = 0; m < b->nr_metrics; m++)
				n += snprintf(line + n, sizeof(line) - n, " %s %.2f %s,",
					      b->metrics[m].label, s.value[m], b->metrics[m].unit);
			snprintf(line + n, sizeof(line) - n, " memory usage %.2f MiB", cur_mem);
			ktap_diag("%s", line);
		}
		if (i < env.warmup || kept >= MAX_SAMPLES)
			continue;
		js = json_pack("{s:f, s:f}", "t", t - start, "seconds", secs);
		for (m = 0; m < b->nr_metrics; m++) {
			values[m][kept] = s.value[m];
			json_object_set_new(js, b->metrics[m].name, json_real(s.value[m]));
		}
		mem[kept] = cur_mem;
		json_object_set_new(js, "mem_mib", json_real(cur_mem));
		json_array_append_new(samples, js);
		kept++;
	}
	__atomic_store_n(&lat.measuring, false, __ATOMIC_RELAXED);
	stop_producers(producers, nr_producers);
	peak = MiB(memcg_peak());

	if (b->check)
		b->check();
	if (b->nr_latencies)
		json_object_set_new(doc, "latency", latencies_report(b));
	latencies_free();
	check_memory(mem, kept, peak);
	b->teardown();
	json_object_set_new(doc, "allocator_counters", ma_counters_delta(ma_before, ma_counters()));
	json_decref(ma_before);
	memcg_leave(cgroup);

	metrics = json_array();
	for (m = 0; m < b->nr_metrics; m++) {
		st[m] = stats_of(values[m], kept);
		json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:f, s:f}",
				      "name", b->metrics[m].name, "label", b->metrics[m].label,
				      "unit", b->metrics[m].unit, "mean", st[m].mean,
				      "stddev", st[m].stddev));
	}
	mem_st = stats_of(mem, kept);
	print_summary(b, st, mem_st, peak);
	json_object_set_new(doc, "metrics", metrics);
	json_object_set_new(doc, "mem", json_pack("{s:f, s:f, s:f, s:f}",
			    "avg_mib", mem_st.mean, "stddev_mib", mem_st.stddev,
			    "peak_mib", peak, "setup_mib", MiB(cur.setup_growth)));
	json_object_set_new(doc, "samples", samples);
	if (cur.failed || cur.checks_failed) {
		snprintf(reason, reason_len, "%d failed checks, %d errors%s%s", cur.checks_failed,
			 cur.failed, cur.failed ? ", the first: " : "", cur.first_error);
		res = RESULT_FAIL;
	} else {
		res = RESULT_OK;
	}
out:
	json_object_set_new(doc, "status", json_string(res == RESULT_OK ? "ok" :
				res == RESULT_SKIP ? "skip" : "fail"));
	if (res == RESULT_FAIL)
		json_object_set_new(doc, "failure", json_string(reason));
	json_object_set_new(doc, "checks", cur.checks);
	print_json(b->name, doc);
	json_decref(doc);
	env = saved;
	cur.b = NULL;
	return res;
}

/*
 * The memory figures come from memory.current and memory.peak, which the
 * kernel keeps in pages charged in batches (up to 64 pages a CPU ahead of
 * use), so a map of a few pages moves them by nothing or by a batch.
 * Before any benchmark, check the sampler against what it must see: a
 * preallocated hash map of SAMPLER_ENTRIES elements, whose keys and
 * values alone take SAMPLER_BYTES, makes memory.current of a fresh
 * cgroup grow by about that (the elements' headers and the buckets add
 * less than twice as much again), memory.peak follows, and the memory
 * comes back once the map is gone (freed from a workqueue, hence the wait).
 */
#define SAMPLER_ENTRIES	65536
#define SAMPLER_VALUE	64
#define SAMPLER_BYTES	((long long)SAMPLER_ENTRIES * (long long)(sizeof(__u32) + SAMPLER_VALUE))

static const struct bench memory_sampler = { .name = "memory_sampler" };

static enum result check_sampler(char *reason, size_t reason_len)
{
	long long before, with_map, peak, after;
	char cgroup[128];
	int fd;

	cur.b = &memory_sampler;
	cur.checks = json_array();
	cur.checks_failed = 0;
	cur.failed = 0;
	cur.first_error[0] = '\0';
	snprintf(cgroup, sizeof(cgroup), "kit-bench-sampler-%d", getpid());
	if (memcg_enter(cgroup)) {
		snprintf(reason, reason_len, "cannot enter memory cgroup %s/%s", CGROUP_ROOT, cgroup);
		json_decref(cur.checks);
		return RESULT_FAIL;
	}
	before = memcg_current();
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "kit_sampler", sizeof(__u32), SAMPLER_VALUE,
			    SAMPLER_ENTRIES, NULL);
	if (fd < 0) {
		snprintf(reason, reason_len, "creating a %d-entry map: %s", SAMPLER_ENTRIES,
			 strerror(errno));
		memcg_leave(cgroup);
		json_decref(cur.checks);
		return RESULT_FAIL;
	}
	with_map = memcg_current();
	peak = memcg_peak();
	close(fd);
	after = memcg_wait_below(before + SAMPLER_BYTES / 4, 5000);
	memcg_leave(cgroup);

	bench_check(before >= 0 && with_map >= 0 && peak >= 0, "files_readable",
		    "memory.current %lld, then %lld; memory.peak %lld", before, with_map, peak);
	bench_check(with_map - before >= SAMPLER_BYTES && with_map - before <= 3 * SAMPLER_BYTES,
		    "sees_a_map", "a map of %d x %zu bytes of keys and values: memory.current "
		    "%.2f -> %.2f MiB (+%.2f, %.2f expected at least)", SAMPLER_ENTRIES,
		    sizeof(__u32) + SAMPLER_VALUE, MiB(before), MiB(with_map),
		    MiB(with_map - before), MiB(SAMPLER_BYTES));
	bench_check(peak >= with_map, "peak_follows", "memory.peak %.2f MiB, current was %.2f MiB",
		    MiB(peak), MiB(with_map));
	bench_check(after - before < SAMPLER_BYTES / 4, "sees_it_freed",
		    "memory.current %.2f MiB after closing the map", MiB(after));
	json_decref(cur.checks);
	cur.b = NULL;
	if (cur.checks_failed) {
		snprintf(reason, reason_len, "%d failed checks", cur.checks_failed);
		return RESULT_FAIL;
	}
	return RESULT_OK;
}

/* --- options --------------------------------------------------------------- */

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: bench [-w SECONDS] [-d SECONDS] [-p PRODUCERS] [-a] [-r REPEAT] [-f] [-l] [NAME-GLOB...]\n"
		"  -w, --warmup SECONDS    samples thrown away first (default 3)\n"
		"  -d, --duration SECONDS  samples kept, one a second (default 10)\n"
		"  -p, --producers N       producer threads (default 1)\n"
		"  -a, --affinity          pin producer i to CPU i %% nr_cpus\n"
		"  -r, --repeat N          program runs per BPF_PROG_TEST_RUN (default: the benchmark's)\n"
		"  -f, --force             run workloads that cannot mean here what they should\n"
		"                          (add_del_on_diff_cpu on one CPU): tests their code path\n"
		"  -l, --list              print the names the globs select and exit\n"
		"Globs also come from $BENCH (comma-separated), options from $BENCH_ARGS.\n"
		"Benchmarks:\n");
	for (i = 0; i < NR_BENCHS; i++)
		fprintf(f, "  %-22s %s\n", benchs[i]->name, benchs[i]->about);
}

static int parse_int(const char *s, int min, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min || v > 1000000) {
		fprintf(stderr, "bench: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/* Split @s at commas and spaces into @argv from @argc on. */
static int split_args(char *s, char **argv, int argc, int max)
{
	char *tok, *save;

	for (tok = strtok_r(s, ", \t", &save); tok && argc < max; tok = strtok_r(NULL, ", \t", &save))
		argv[argc++] = tok;
	return argc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "warmup", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "producers", required_argument, NULL, 'p' },
		{ "affinity", no_argument, NULL, 'a' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *args[MAX_ARGS], *globs[MAX_GLOBS], *env_args = getenv("BENCH_ARGS");
	char *env_globs = getenv("BENCH"), reason[256];
	bool selected[NR_BENCHS] = { false }, list = false;
	int nargs = 0, nglobs = 0, opt, i, n = 0, planned = 0, failed = 0;
	struct utsname uts;
	size_t b;

	/* $BENCH_ARGS first, so that the command line wins. */
	args[nargs++] = argv[0];
	if (env_args)
		nargs = split_args(strdup(env_args), args, nargs, MAX_ARGS - 1);
	for (i = 1; i < argc && nargs < MAX_ARGS - 1; i++)
		args[nargs++] = argv[i];
	args[nargs] = NULL;

	env.warmup = 3;
	env.duration = 10;
	env.producers = 1;
	env.nr_cpus = get_nprocs();
	while ((opt = getopt_long(nargs, args, "w:d:p:ar:flh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			env.warmup = parse_int(optarg, 0, "warm-up");
			break;
		case 'd':
			env.duration = parse_int(optarg, 1, "duration");
			break;
		case 'p':
			env.producers = parse_int(optarg, 1, "producer count");
			break;
		case 'a':
			env.affinity = true;
			break;
		case 'r':
			env.repeat = parse_int(optarg, 1, "repeat");
			break;
		case 'f':
			env.force = true;
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (env.producers > BENCH_MAX_PRODUCERS) {
		fprintf(stderr, "bench: at most %d producers\n", BENCH_MAX_PRODUCERS);
		return 2;
	}
	if (env.warmup + env.duration > MAX_SAMPLES) {
		fprintf(stderr, "bench: at most %d seconds in all\n", MAX_SAMPLES);
		return 2;
	}
	for (b = 0; b < NR_BENCHS; b++) {
		if (!benchs[b]->prog == !benchs[b]->produce) {
			fprintf(stderr, "bench: %s gives %s prog() %s produce(): it must give one\n",
				benchs[b]->name, benchs[b]->prog ? "both" : "neither",
				benchs[b]->prog ? "and" : "nor");
			return 1;
		}
	}
	for (i = optind; i < nargs && nglobs < MAX_GLOBS; i++)
		nglobs = split_args(args[i], globs, nglobs, MAX_GLOBS);
	if (env_globs && strcmp(env_globs, "all"))
		nglobs = split_args(strdup(env_globs), globs, nglobs, MAX_GLOBS);

	for (i = 0; i < nglobs; i++) {
		bool any = false;

		for (b = 0; b < NR_BENCHS; b++)
			if (!strcmp(globs[i], "all") || !fnmatch(globs[i], benchs[b]->name, 0))
				any = selected[b] = true;
		if (!any) {
			fprintf(stderr, "bench: no benchmark matches '%s'; there are:", globs[i]);
			for (b = 0; b < NR_BENCHS; b++)
				fprintf(stderr, " %s", benchs[b]->name);
			fputc('\n', stderr);
			return 2;
		}
	}
	for (b = 0; b < NR_BENCHS; b++) {
		if (!nglobs)
			selected[b] = true;
		planned += selected[b];
	}
	if (list) {
		for (b = 0; b < NR_BENCHS; b++)
			if (selected[b])
				printf("%s\n", benchs[b]->name);
		return 0;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	uname(&uts);
	ktap_plan("bench", planned + 1);
	ktap_diag("bench: kernel %s %s, %d CPU(s); -w %d -d %d -p %d%s%s", uts.release, uts.version,
	     env.nr_cpus, env.warmup, env.duration, env.producers, env.affinity ? " -a" : "",
	     env.force ? " -f" : "");
	reason[0] = '\0';
	if (check_sampler(reason, sizeof(reason)) == RESULT_OK) {
		ktap_result(++n, memory_sampler.name, KTAP_PASS, NULL);
	} else {
		ktap_result(++n, memory_sampler.name, KTAP_FAIL, reason);
		failed++;
	}
	for (b = 0; b < NR_BENCHS; b++) {
		if (!selected[b])
			continue;
		reason[0] = '\0';
		switch (run_bench(benchs[b], reason, sizeof(reason))) {
		case RESULT_OK:
			ktap_result(++n, benchs[b]->name, KTAP_PASS, NULL);
			break;
		case RESULT_SKIP:
			ktap_result(++n, benchs[b]->name, KTAP_SKIP, reason);
			break;
		case RESULT_FAIL:
			ktap_result(++n, benchs[b]->name, KTAP_FAIL, reason);
			failed++;
			break;
		}
	}
	return failed ? 1 : 0;
}
