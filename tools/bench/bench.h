/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kit's benchmark runner, modelled on the kernel's
 * tools/testing/selftests/bpf/bench.c: a benchmark is a table of
 * callbacks (validate, setup, producer, measure, check, teardown) and
 * its data; the runner owns the producer threads and, for a workload
 * that runs one tc program, their loop and the count of its runs, the memory cgroup the benchmark runs
 * in, warm-up (-w), duration (-d), sampling (one sample a second) and
 * reporting: human-readable lines, one JSON document per benchmark
 * between marker lines, and a KTAP result per benchmark that fails only
 * when the benchmark's correctness checks fail.  Throughput is a
 * figure, never a verdict.
 */
#ifndef KIT_BENCH_H
#define KIT_BENCH_H

#include <stdbool.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

#define BENCH_MAX_METRICS	4
#define BENCH_MAX_LATENCIES	4
#define BENCH_MAX_PRODUCERS	64

struct bench_env {
	int warmup;		/* seconds of samples thrown away */
	int duration;		/* seconds of samples kept */
	int producers;		/* producer threads */
	bool affinity;		/* pin producer i to CPU i % nr_cpus */
	bool force;		/* run where a workload cannot mean what it should */
	int repeat;		/* program runs per BPF_PROG_TEST_RUN; 0: the bench's */
	int nr_cpus;		/* online CPUs */
};

/* The settings of the benchmark being run (validate() may adjust them). */
extern struct bench_env env;

/* One figure of a benchmark, e.g. iterations per second per producer. */
struct bench_metric {
	const char *name;	/* JSON key, e.g. "per_prod_op" */
	const char *label;	/* as upstream prints it, e.g. "per-prod-op" */
	const char *unit;	/* e.g. "k/s", "events/s", "M/s" */
};

/* What measure() fills in: each metric's value over the last sample. */
struct bench_sample {
	double value[BENCH_MAX_METRICS];
};

struct bench {
	const char *name;	/* BENCH= selection and KTAP case name */
	const char *group;	/* upstream tool: htab-mem, map_perf, bpf_ma */
	const char *title;	/* upstream's name for the row */
	const char *upstream;	/* the upstream command this mirrors */
	const char *about;	/* one line: what the workload does here */
	struct bench_metric metrics[BENCH_MAX_METRICS];
	int nr_metrics;
	/*
	 * Operations the benchmark times one by one (bench_latency()): the
	 * runner keeps the measured seconds' values and reports each as
	 * median, p90, max and count, in microseconds (the unit is unused).
	 */
	struct bench_metric latencies[BENCH_MAX_LATENCIES];
	int nr_latencies;
	int repeat;		/* default program runs per BPF_PROG_TEST_RUN */

	/* NULL when the workload can run here, else why not (a skip). */
	const char *(*validate)(void);
	/* Maps and programs, in the benchmark's memory cgroup; 0 or -errno. */
	int (*setup)(void);
	/*
	 * The program of producer @id.  The runner's producers run it,
	 * bench_repeat() runs per BPF_PROG_TEST_RUN, until they are told to
	 * stop, and count the runs (bench_runs()): a workload that only runs
	 * its program gives this, and no produce().
	 */
	struct bpf_program *(*prog)(int id);
	/*
	 * Or one unit of producer @id's own work (pairs in lockstep, system
	 * calls).  Returns false once bench_stopping(@stop) (or on error,
	 * after bench_fail()).  The runner calls it until then; a producer
	 * that must stop in step with another (a pair) decides itself when
	 * to look.
	 */
	bool (*produce)(int id, const bool *stop);
	/* The figures since the previous call, @seconds ago. */
	void (*measure)(struct bench_sample *s, double seconds);
	/* After the producers stopped: correctness checks (bench_check()). */
	void (*check)(void);
	void (*teardown)(void);
};

/*
 * Record a correctness check of the running benchmark: printed as a
 * diagnostic, kept in its JSON document, and any failed one makes its
 * KTAP result "not ok".
 */
void bench_check(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print a diagnostic and fail the running benchmark (any thread). */
void bench_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Run tc @prog @repeat times with BPF_PROG_TEST_RUN on a packet whose
 * first 4 bytes are @producer (the programs take their key range from
 * it), and count the runs as @producer's (bench_runs()); 0, or -errno
 * after bench_fail().  Each producer calls it with its own number.
 */
int bench_test_run(struct bpf_program *prog, __u32 producer, int repeat);

/*
 * Program runs completed by producers @first, @first + @step, ... of the
 * running benchmark (bench_test_run()); read them once the producers
 * stopped (check()).
 */
__u64 bench_runs(int first, int step);

/*
 * One timing of the running benchmark's operation @i (its latencies[i]),
 * @us microseconds: kept only while the runner measures (not in the
 * warm-up), from any producer.
 */
void bench_latency(int i, double us);

/* Program runs per BPF_PROG_TEST_RUN for this benchmark (-r or its default). */
int bench_repeat(void);

/* Whether the runner asked the producers to stop. */
static inline bool bench_stopping(const bool *stop)
{
	return __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* Read-and-zero of a counter the programs add to (a bss variable). */
static inline __u64 bench_swap(void *counter)
{
	return __atomic_exchange_n((__u64 *)counter, 0, __ATOMIC_SEQ_CST);
}

static inline __u64 bench_read(const void *counter)
{
	return __atomic_load_n((const __u64 *)counter, __ATOMIC_SEQ_CST);
}

/* The benchmarks, in the order they run. */
extern const struct bench bench_no_op;
extern const struct bench bench_overwrite;
extern const struct bench bench_batch_add_batch_del;
extern const struct bench bench_add_del_on_diff_cpu;
extern const struct bench bench_hash_kmalloc;
extern const struct bench bench_hash_prealloc;
extern const struct bench bench_hash_full_update;
extern const struct bench bench_percpu_alloc_free;
extern const struct bench bench_rcu_gp;

#endif /* KIT_BENCH_H */
