/* metrics.c - GET /metrics: the cluster in Prometheus' text format, from the
 * controller's job, node and partition listings and its statistics (sdiag's),
 * asked for as the requesting user.  Names are those of the most used Slurm
 * exporter (vpenso/prometheus-slurm-exporter: slurm_queue_*, slurm_nodes_*,
 * slurm_cpus_*, slurm_gpus_*, slurm_node_*, slurm_partition_*, slurm_user_*,
 * slurm_account_*, slurm_scheduler_*), so that its Grafana boards work; Rota's
 * own are rota_* (doc/rest.md lists them). */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/states.h"
#include "proto/messages.h"
#include "restd/restd.h"
#include "common/common.h"

enum { Q_JOBS, Q_NODES, Q_PARTS, Q_STATS, Q_PING, Q_N };

static const uint16_t q_type[Q_N] = {MSG_JOB_INFO_REQ, MSG_NODE_INFO_REQ,
                                     MSG_PART_INFO_REQ, MSG_STATS_REQ, MSG_PING_REQ};
static const uint16_t q_resp[Q_N] = {MSG_JOB_INFO_RESP, MSG_NODE_INFO_RESP,
                                     MSG_PART_INFO_RESP, MSG_STATS_RESP, MSG_PING_RESP};

struct scrape {
	const struct conf *conf;
	struct evhttp_request *req;
	int waiting, failed;
	void *body[Q_N];
};

struct answer {
	struct scrape *s;
	int q;
};

/* A label value as the text format wants it: \ " and newline escaped. */
static const char *esc(const char *v, char *buf, size_t len)
{
	size_t o = 0;

	for (; v && *v && o + 3 < len; v++) {
		if (*v == '\\' || *v == '"' || *v == '\n') {
			buf[o++] = '\\';
			buf[o++] = *v == '\n' ? 'n' : *v;
		} else {
			buf[o++] = *v;
		}
	}
	buf[o] = '\0';
	return buf;
}

/* The GPUs in a GRES list: "gpu:2", "gpu:h100:1(IDX:0),nic:1" -> the gpu counts. */
uint64_t restd_gpus_in(const char *gres)
{
	uint64_t n = 0;

	for (const char *p = gres; p && *p;) {
		size_t len = strcspn(p, ",");
		if (!strncmp(p, "gpu", 3) && (p[3] == ':' || p[3] == ',' || !p[3])) {
			const char *c = p + len, *num;
			const char *paren = memchr(p, '(', len);

			if (paren)
				c = paren;
			for (num = c; num > p && num[-1] >= '0' && num[-1] <= '9'; num--)
				;
			n += num < c && num[-1] == ':' ? strtoull(num, NULL, 10) : 1;
		}
		p += len;
		p += *p == ',';
	}
	return n;
}

static void metric(struct evbuffer *b, const char *name, const char *help,
                   const char *type)
{
	evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One counter per distinct label value, over the jobs: a small table. */
struct tally {
	char **keys;
	uint64_t *pending, *running, *suspended, *cpus;
	size_t n;
};

static size_t tally_at(struct tally *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->n && strcmp(t->keys[i], key); i++)
		;
	if (i == t->n) {
		t->keys = xrealloc(t->keys, (t->n + 1) * sizeof(*t->keys));
		t->pending = xrealloc(t->pending, (t->n + 1) * sizeof(*t->pending));
		t->running = xrealloc(t->running, (t->n + 1) * sizeof(*t->running));
		t->suspended = xrealloc(t->suspended, (t->n + 1) * sizeof(*t->suspended));
		t->cpus = xrealloc(t->cpus, (t->n + 1) * sizeof(*t->cpus));
		t->keys[i] = xstrdup(key);
		t->pending[i] = t->running[i] = t->suspended[i] = t->cpus[i] = 0;
		t->n++;
	}
	return i;
}

static void tally_add(struct tally *t, const char *key, const struct job_info *j)
{
	size_t i = tally_at(t, key ? key : "");
	uint32_t base = j->state & JOB_STATE_BASE;

	if (base == JOB_PENDING)
		t->pending[i]++;
	else if (base == JOB_RUNNING) {
		t->running[i]++;
		t->cpus[i] += j->num_cpus;
	} else if (base == JOB_SUSPENDED)
		t->suspended[i]++;
}

static void tally_print(struct evbuffer *b, const struct tally *t, const char *what,
                        const char *label)
{
	static const char *const kinds[] = {"jobs_pending", "jobs_running",
	                                    "jobs_suspended", "cpus_running"};
	char name[64], help[96], buf[256];

	for (int k = 0; k < 4; k++) {
		const uint64_t *v = k == 0   ? t->pending
		                    : k == 1 ? t->running
		                    : k == 2 ? t->suspended
		                             : t->cpus;
		snprintf(name, sizeof(name), "slurm_%s_%s", what, kinds[k]);
		snprintf(help, sizeof(help), "%s for %s", kinds[k], what);
		metric(b, name, help, "gauge");
		for (size_t i = 0; i < t->n; i++)
			evbuffer_add_printf(b, "%s{%s=\"%s\"} %llu\n", name, label,
			                    esc(t->keys[i], buf, sizeof(buf)),
			                    (unsigned long long)v[i]);
	}
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->pending);
	free(t->running);
	free(t->suspended);
	free(t->cpus);
}

static void jobs_metrics(struct evbuffer *b, const struct job_info_resp *jobs)
{
	static const struct {
		const char *name;
		int state;
	} queue[] = {{"pending", JOB_PENDING},     {"running", JOB_RUNNING},
	             {"suspended", JOB_SUSPENDED}, {"completed", JOB_COMPLETE},
	             {"cancelled", JOB_CANCELLED}, {"failed", JOB_FAILED},
	             {"timeout", JOB_TIMEOUT},     {"node_fail", JOB_NODE_FAIL},
	             {"preempted", JOB_PREEMPTED}, {"out_of_memory", JOB_OOM}};
	uint64_t n[JOB_END + 1] = {0}, completing = 0, configuring = 0, dep = 0;
	uint64_t reasons[WAIT_REASON_END] = {0};
	struct tally users = {0}, accounts = {0};
	char name[64], buf[128];

	for (uint32_t i = 0; i < jobs->jobs_count; i++) {
		const struct job_info *j = &jobs->jobs[i];
		uint32_t base = j->state & JOB_STATE_BASE;

		if (base <= JOB_END)
			n[base]++;
		completing += !!(j->state & JOB_COMPLETING);
		configuring += !!(j->state & JOB_CONFIGURING);
		if (base == JOB_PENDING) {
			dep += j->reason == WAIT_DEPENDENCY;
			if (j->reason < WAIT_REASON_END)
				reasons[j->reason]++;
		}
		tally_add(&users, j->user, j);
		tally_add(&accounts, j->account, j);
	}
	for (size_t q = 0; q < sizeof(queue) / sizeof(queue[0]); q++) {
		snprintf(name, sizeof(name), "slurm_queue_%s", queue[q].name);
		metric(b, name, "Jobs in this state", "gauge");
		evbuffer_add_printf(b, "%s %llu\n", name,
		                    (unsigned long long)n[queue[q].state]);
	}
	metric(b, "slurm_queue_completing", "Jobs completing", "gauge");
	evbuffer_add_printf(b, "slurm_queue_completing %llu\n",
	                    (unsigned long long)completing);
	metric(b, "slurm_queue_configuring", "Jobs configuring", "gauge");
	evbuffer_add_printf(b, "slurm_queue_configuring %llu\n",
	                    (unsigned long long)configuring);
	metric(b, "slurm_queue_pending_dependency", "Jobs pending on a dependency",
	       "gauge");
	evbuffer_add_printf(b, "slurm_queue_pending_dependency %llu\n",
	                    (unsigned long long)dep);
	metric(b, "rota_jobs_pending_reason", "Pending jobs by reason (squeue's words)",
	       "gauge");
	for (int r = 0; r < WAIT_REASON_END; r++)
		if (reasons[r])
			evbuffer_add_printf(
			    b, "rota_jobs_pending_reason{reason=\"%s\"} %llu\n",
			    esc(job_reason_name((uint32_t)r), buf, sizeof(buf)),
			    (unsigned long long)reasons[r]);
	tally_print(b, &users, "user", "user");
	tally_print(b, &accounts, "account", "account");
}

enum node_gauge { NG_CPU_ALLOC, NG_CPU_TOTAL, NG_MEM_ALLOC, NG_MEM_TOTAL };

/* One value per node, labelled with its name and state (sinfo's long name). */
static void node_gauge(struct evbuffer *b, const struct node_info_resp *nodes,
                       enum node_gauge what)
{
	static const char *const names[] = {
	    "slurm_node_cpu_alloc", "slurm_node_cpu_total", "slurm_node_mem_alloc",
	    "slurm_node_mem_total"};
	static const char *const helps[] = {
	    "Allocated CPUs per node", "Total CPUs per node",
	    "Allocated memory per node (MB)", "Total memory per node (MB)"};
	char st[32];

	metric(b, names[what], helps[what], "gauge");
	for (uint32_t i = 0; i < nodes->nodes_count; i++) {
		const struct node_info *n = &nodes->nodes[i];
		uint64_t v = what == NG_CPU_ALLOC   ? n->alloc_cpus
		             : what == NG_CPU_TOTAL ? n->cpus
		             : what == NG_MEM_ALLOC ? n->alloc_memory
		                                    : n->real_memory;

		evbuffer_add_printf(
		    b, "%s{node=\"%s\",status=\"%s\"} %llu\n", names[what], n->name,
		    node_state_long(n->state, st, sizeof(st)), (unsigned long long)v);
	}
}

static void nodes_metrics(struct evbuffer *b, const struct node_info_resp *nodes,
                          const struct part_info_resp *parts,
                          const struct job_info_resp *jobs)
{
	static const char *const kinds[] = {"alloc", "comp",  "down", "drain",
	                                    "idle",  "maint", "mix",  "resv"};
	uint64_t count[8] = {0}, alloc = 0, idle = 0, other = 0, total = 0;
	uint64_t g_total = 0, g_alloc = 0;
	char st[32], name[64], buf[256];

	for (uint32_t i = 0; i < nodes->nodes_count; i++) {
		const struct node_info *n = &nodes->nodes[i];
		uint32_t base = n->state & NODE_STATE_BASE;
		int usable = base != NODE_DOWN &&
		             !(n->state & (NODE_DRAIN | NODE_FAIL | NODE_NO_RESPOND));
		size_t len;

		node_state_short(n->state, st, sizeof(st));
		len = strcspn(st, "*~#%!$@^-");
		st[len] = '\0';
		if (!strcmp(st, "drng") || !strcmp(st, "drain"))
			snprintf(st, sizeof(st), "drain");
		for (int k = 0; k < 8; k++)
			if (!strcmp(st, kinds[k]))
				count[k]++;
		total += n->cpus;
		alloc += n->alloc_cpus;
		if (usable)
			idle +=
			    n->cpus - (n->alloc_cpus < n->cpus ? n->alloc_cpus : n->cpus);
		else
			other +=
			    n->cpus - (n->alloc_cpus < n->cpus ? n->alloc_cpus : n->cpus);
		g_total += restd_gpus_in(n->gres);
		g_alloc += restd_gpus_in(n->gres_used);
	}
	node_gauge(b, nodes, NG_CPU_ALLOC);
	node_gauge(b, nodes, NG_CPU_TOTAL);
	node_gauge(b, nodes, NG_MEM_ALLOC);
	node_gauge(b, nodes, NG_MEM_TOTAL);
	for (int k = 0; k < 8; k++) {
		snprintf(name, sizeof(name), "slurm_nodes_%s", kinds[k]);
		metric(b, name, "Nodes in this state", "gauge");
		evbuffer_add_printf(b, "%s %llu\n", name, (unsigned long long)count[k]);
	}
	metric(b, "slurm_cpus_alloc", "Allocated CPUs", "gauge");
	evbuffer_add_printf(b, "slurm_cpus_alloc %llu\n", (unsigned long long)alloc);
	metric(b, "slurm_cpus_idle", "Idle CPUs", "gauge");
	evbuffer_add_printf(b, "slurm_cpus_idle %llu\n", (unsigned long long)idle);
	metric(b, "slurm_cpus_other", "CPUs of nodes down or drained", "gauge");
	evbuffer_add_printf(b, "slurm_cpus_other %llu\n", (unsigned long long)other);
	metric(b, "slurm_cpus_total", "Total CPUs", "gauge");
	evbuffer_add_printf(b, "slurm_cpus_total %llu\n", (unsigned long long)total);
	metric(b, "slurm_gpus_alloc", "Allocated GPUs", "gauge");
	evbuffer_add_printf(b, "slurm_gpus_alloc %llu\n", (unsigned long long)g_alloc);
	metric(b, "slurm_gpus_idle", "Idle GPUs", "gauge");
	evbuffer_add_printf(
	    b, "slurm_gpus_idle %llu\n",
	    (unsigned long long)(g_total > g_alloc ? g_total - g_alloc : 0));
	metric(b, "slurm_gpus_total", "Total GPUs", "gauge");
	evbuffer_add_printf(b, "slurm_gpus_total %llu\n", (unsigned long long)g_total);

	/* per partition: its nodes' CPUs, and its pending jobs */
	for (int k = 0; k < 4; k++) {
		static const char *const pk[] = {"allocated", "idle", "total",
		                                 "jobs_pending"};
		snprintf(name, sizeof(name),
		         k < 3 ? "slurm_partition_cpus_%s" : "slurm_partition_%s", pk[k]);
		metric(b, name, "Per partition", "gauge");
		for (uint32_t p = 0; p < parts->parts_count; p++) {
			const char *pn = parts->parts[p].name;
			uint64_t v = 0;

			if (k == 3) {
				for (uint32_t j = 0; j < jobs->jobs_count; j++)
					v += (jobs->jobs[j].state & JOB_STATE_BASE) ==
					         JOB_PENDING &&
					     jobs->jobs[j].partition &&
					     !strcmp(jobs->jobs[j].partition, pn);
			} else {
				for (uint32_t i = 0; i < nodes->nodes_count; i++) {
					const struct node_info *n = &nodes->nodes[i];
					const char *l = n->partitions;
					int in = 0;

					while (l && *l && !in) {
						size_t len = strcspn(l, ",");
						in = len == strlen(pn) &&
						     !strncmp(l, pn, len);
						l += len;
						l += *l == ',';
					}
					if (!in)
						continue;
					v += k == 0   ? n->alloc_cpus
					     : k == 1 ? n->cpus - (n->alloc_cpus < n->cpus
					                               ? n->alloc_cpus
					                               : n->cpus)
					              : n->cpus;
				}
			}
			evbuffer_add_printf(b, "%s{partition=\"%s\"} %llu\n", name,
			                    esc(pn, buf, sizeof(buf)),
			                    (unsigned long long)v);
		}
	}
}

static void stats_metrics(struct evbuffer *b, const struct stats_resp *s)
{
	double mean = s->sched_cycles ? (double)s->sched_sum_us / s->sched_cycles : 0;
	double bf_mean = s->bf_cycles ? (double)s->bf_sum_us / s->bf_cycles : 0;
	double bf_depth = s->bf_cycles ? (double)s->bf_depth_sum / s->bf_cycles : 0;
	double minutes = s->now > s->since ? (double)(s->now - s->since) / 60 : 0;

	metric(b, "slurm_scheduler_threads", "Controller threads", "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_threads %u\n", s->threads);
	metric(b, "slurm_scheduler_queue_size", "Agent queue size", "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_queue_size %u\n", s->agent_queue);
	metric(b, "slurm_scheduler_last_cycle", "Last scheduling cycle (microseconds)",
	       "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_last_cycle %u\n", s->sched_last_us);
	metric(b, "slurm_scheduler_mean_cycle", "Mean scheduling cycle (microseconds)",
	       "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_mean_cycle %.0f\n", mean);
	metric(b, "slurm_scheduler_cycle_per_minute", "Scheduling cycles per minute",
	       "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_cycle_per_minute %.0f\n",
	                    minutes > 0 ? s->sched_cycles / minutes : 0);
	metric(b, "slurm_scheduler_backfill_last_cycle",
	       "Last backfill cycle (microseconds)", "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_backfill_last_cycle %u\n", s->bf_last_us);
	metric(b, "slurm_scheduler_backfill_mean_cycle",
	       "Mean backfill cycle (microseconds)", "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_backfill_mean_cycle %.0f\n", bf_mean);
	metric(b, "slurm_scheduler_backfill_depth_mean", "Mean backfill depth", "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_backfill_depth_mean %.0f\n", bf_depth);
	metric(b, "slurm_scheduler_backfilled_jobs_since_start_total",
	       "Jobs started by backfill since the controller started", "gauge");
	evbuffer_add_printf(b, "slurm_scheduler_backfilled_jobs_since_start_total %u\n",
	                    s->bf_backfilled);
	metric(b, "rota_scheduler_last_cycle_timestamp_seconds", "When backfill last ran",
	       "gauge");
	evbuffer_add_printf(b, "rota_scheduler_last_cycle_timestamp_seconds %lld\n",
	                    (long long)s->bf_last_when);
	metric(b, "rota_controller_uptime_seconds", "Since the statistics began",
	       "gauge");
	evbuffer_add_printf(b, "rota_controller_uptime_seconds %lld\n",
	                    (long long)(s->now > s->since ? s->now - s->since : 0));
	metric(b, "rota_journal_syncs_total", "Journal syncs (fdatasync)", "counter");
	evbuffer_add_printf(b, "rota_journal_syncs_total %u\n", s->journal_syncs);
	metric(b, "rota_journal_sync_last_seconds", "The last journal sync's time",
	       "gauge");
	evbuffer_add_printf(b, "rota_journal_sync_last_seconds %.6f\n",
	                    s->journal_sync_last_us / 1e6);
	metric(b, "rota_journal_sync_max_seconds", "The longest journal sync", "gauge");
	evbuffer_add_printf(b, "rota_journal_sync_max_seconds %.6f\n",
	                    s->journal_sync_max_us / 1e6);
	metric(b, "rota_journal_bytes", "Journal size", "gauge");
	evbuffer_add_printf(b, "rota_journal_bytes %llu\n",
	                    (unsigned long long)s->journal_bytes);
	metric(b, "rota_rpc_total", "Requests served, by type", "counter");
	for (uint32_t i = 0; i < s->rpc_types_count; i++)
		evbuffer_add_printf(b, "rota_rpc_total{type=\"%s\"} %u\n",
		                    s->rpc_types[i].name ? s->rpc_types[i].name : "",
		                    s->rpc_types[i].count);
	metric(b, "rota_rpc_seconds_total", "Time spent serving requests, by type",
	       "counter");
	for (uint32_t i = 0; i < s->rpc_types_count; i++)
		evbuffer_add_printf(b, "rota_rpc_seconds_total{type=\"%s\"} %.6f\n",
		                    s->rpc_types[i].name ? s->rpc_types[i].name : "",
		                    s->rpc_types[i].total_us / 1e6);
}

/* The controller that answered: the first SlurmctldHost ("primary"), or a
 * later one that took over ("backup"); term: the takeovers its history has
 * seen. */
static void ping_metrics(struct evbuffer *b, const struct ping_resp *p,
                         const struct conf *conf)
{
	const char *first = conf_ctld_host(conf, 0);
	char buf[256];

	metric(b, "rota_controller_info", "The controller answering (its host and mode)",
	       "gauge");
	evbuffer_add_printf(b, "rota_controller_info{host=\"%s\",mode=\"%s\"} 1\n",
	                    esc(p->host, buf, sizeof(buf)),
	                    p->standby                                      ? "standby"
	                    : !first || !p->host || !strcmp(first, p->host) ? "primary"
	                                                                    : "backup");
	metric(b, "rota_controller_standby", "1 while a standby has not taken over",
	       "gauge");
	evbuffer_add_printf(b, "rota_controller_standby %u\n", p->standby ? 1 : 0);
	metric(b, "rota_controller_takeovers", "Takeovers in the controller's history",
	       "counter");
	evbuffer_add_printf(b, "rota_controller_takeovers %u\n", p->term);
}

static void scrape_done(struct scrape *s)
{
	struct evbuffer *b = evbuffer_new();

	if (!b)
		fatal("out of memory");
	if (s->failed) {
		evbuffer_add_printf(b, "the controller did not answer\n");
		evhttp_send_reply(s->req, 503, NULL, b);
	} else {
		jobs_metrics(b, s->body[Q_JOBS]);
		nodes_metrics(b, s->body[Q_NODES], s->body[Q_PARTS], s->body[Q_JOBS]);
		stats_metrics(b, s->body[Q_STATS]);
		ping_metrics(b, s->body[Q_PING], s->conf);
		evhttp_add_header(evhttp_request_get_output_headers(s->req),
		                  "Content-Type", "text/plain; version=0.0.4");
		evhttp_send_reply(s->req, 200, NULL, b);
	}
	evbuffer_free(b);
	for (int q = 0; q < Q_N; q++)
		msg_body_free(q_resp[q], s->body[q]);
	free(s);
}

static void answered(void *arg, int rc, const char *msg, uint16_t type, void **body)
{
	struct answer *a = arg;
	struct scrape *s = a->s;

	if (rc || type != q_resp[a->q]) {
		s->failed = 1;
	} else {
		s->body[a->q] = *body;
		*body = NULL;
	}
	free(a);
	if (!--s->waiting)
		scrape_done(s);
}

void restd_metrics(struct restd *r, struct evhttp_request *req, const struct rest_user *u)
{
	struct scrape *s = xcalloc(1, sizeof(*s));

	s->conf = r->conf;
	s->req = req;
	s->waiting = Q_N + 1; /* one held until every call is made */
	for (int q = 0; q < Q_N; q++) {
		struct answer *a = xcalloc(1, sizeof(*a));

		a->s = s;
		a->q = q;
		if (relay_call(r, u, q_type[q], msg_body_new(q_type[q]), answered, a) <
		    0) {
			free(a);
			s->failed = 1;
			s->waiting--;
		}
	}
	if (!--s->waiting)
		scrape_done(s);
}
