/* jtext.c - a job's environment and script written once in the journal (see
 * jtext.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/intern.h"
#include "common/strv.h"
#include "ctld/job_event.h"
#include "ctld/journal.h"
#include "ctld/jtext.h"
#include "common/common.h"

/* ---- writing ---- */

/* The id of text in this file, written first as a TEXT record when it is not
 * there yet; 0 when it is not a kept copy's (then it stays inline). */
static uint64_t text_ref(struct jtext_out *w, void *text, int is_vec, uint64_t seq,
                         char **buf, size_t *len, size_t *cap, size_t *n)
{
	struct intern_tag *t =
	    is_vec ? intern_tag_strv(w->in, text) : intern_tag_str(w->in, text);
	union job_event tev;

	if (!t)
		return 0;
	if (t->gen == w->gen && t->id)
		return t->id;
	t->id = w->flag | w->next_id++;
	t->gen = w->gen;
	memset(&tev, 0, sizeof(tev));
	tev.text.type = EV_TEXT;
	tev.text.seq = seq;
	tev.text.id = t->id;
	tev.text.is_vec = (uint32_t)is_vec;
	if (is_vec)
		tev.text.vec = text;
	else
		tev.text.text = text;
	*n += journal_frame_append(&tev, buf, len, cap);
	return t->id;
}

size_t jtext_frame_append(struct jtext_out *w, const union job_event *ev, char **buf,
                          size_t *len, size_t *cap)
{
	union job_event sub;
	struct job_desc d;
	size_t n = 0;
	uint64_t id;

	if (!w || !w->in || !w->gen || ev->head.type != EV_SUBMIT ||
	    ev->submit.desc_count != 1)
		return journal_frame_append(ev, buf, len, cap);
	sub = *ev; /* shallow: only encoded */
	d = ev->submit.desc[0];
	sub.submit.desc = &d;
	if (d.env && (id = text_ref(w, d.env, 1, ev->head.seq, buf, len, cap, &n))) {
		sub.submit.env_text = id;
		d.env = NULL;
	}
	if (d.script &&
	    (id = text_ref(w, d.script, 0, ev->head.seq, buf, len, cap, &n))) {
		sub.submit.script_text = id;
		d.script = NULL;
	}
	return n + journal_frame_append(&sub, buf, len, cap);
}

/* ---- reading ---- */

struct slot {
	uint64_t id; /* 0: free */
	void *text;  /* a kept copy (one reference is the table's) */
	int is_vec;
};

struct jtext_in {
	struct intern *in;
	int lend;          /* in is the caller's: lend kept copies */
	struct slot *tab;  /* open addressing, linear probing */
	size_t cap, count; /* cap: a power of two */
	uint64_t max_id;
	void *lent_env, *lent_script; /* lent to the current event */
};

struct jtext_in *jtext_in_create(struct intern *in)
{
	struct jtext_in *r = xcalloc(1, sizeof(*r));

	r->lend = in != NULL;
	r->in = in ? in : intern_create();
	r->cap = 16;
	r->tab = xcalloc(r->cap, sizeof(*r->tab));
	return r;
}

static void drop_text(struct intern *in, void *text, int is_vec)
{
	if (is_vec)
		intern_drop_strv(in, text);
	else
		intern_drop_str(in, text);
}

void jtext_in_destroy(struct jtext_in *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->cap; i++)
		if (r->tab[i].id)
			drop_text(r->in, r->tab[i].text, r->tab[i].is_vec);
	free(r->tab);
	if (!r->lend)
		intern_destroy(r->in);
	free(r);
}

static struct slot *slot_of(const struct jtext_in *r, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (r->cap - 1);

	while (r->tab[i].id && r->tab[i].id != id)
		i = (i + 1) & (r->cap - 1);
	return &r->tab[i];
}

static void grow(struct jtext_in *r)
{
	struct slot *old = r->tab;
	size_t n = r->cap;

	r->cap *= 2;
	r->tab = xcalloc(r->cap, sizeof(*r->tab));
	for (size_t i = 0; i < n; i++)
		if (old[i].id)
			*slot_of(r, old[i].id) = old[i];
	free(old);
}

static void keep_text(struct jtext_in *r, struct ev_text *t)
{
	struct slot *s;
	void *text;

	if (t->is_vec) {
		if (!t->vec)
			t->vec = xcalloc(1, sizeof(char *));
		text = intern_strv(r->in, t->vec);
		t->vec = NULL;
	} else {
		if (!t->text)
			t->text = xstrdup("");
		text = intern_str(r->in, t->text);
		t->text = NULL;
	}
	if (!(t->id & JTEXT_SNAPSHOT) && t->id > r->max_id)
		r->max_id = t->id;
	if ((r->count + 1) * 2 > r->cap)
		grow(r);
	s = slot_of(r, t->id);
	if (s->id) /* the same id again: the later text is the one */
		drop_text(r->in, s->text, s->is_vec);
	else
		r->count++;
	*s = (struct slot){t->id, text, !!t->is_vec};
}

/* The text of id for an event: the kept copy lent, or a copy of its own. */
static void *give(struct jtext_in *r, uint64_t id, int is_vec)
{
	struct slot *s = slot_of(r, id);

	if (!s->id || s->is_vec != is_vec)
		return NULL;
	if (r->lend)
		return s->text;
	return is_vec ? (void *)strv_dup(s->text) : (void *)xstrdup(s->text);
}

int jtext_in_event(struct jtext_in *r, union job_event *ev)
{
	struct ev_submit *sub = &ev->submit;
	struct job_desc *d;
	char **env = NULL;
	char *script = NULL;

	r->lent_env = r->lent_script = NULL;
	if (ev->head.type == EV_TEXT) {
		if (ev->text.id)
			keep_text(r, &ev->text);
		return 1;
	}
	if (ev->head.type != EV_SUBMIT || (!sub->env_text && !sub->script_text))
		return 0;
	if (sub->desc_count != 1)
		return -ENOENT;
	if ((sub->env_text && !(env = give(r, sub->env_text, 1))) ||
	    (sub->script_text && !(script = give(r, sub->script_text, 0)))) {
		if (!r->lend) {
			strv_free(env);
			free(script);
		}
		return -ENOENT;
	}
	d = &sub->desc[0];
	if (env) {
		strv_free(d->env);
		d->env = env;
		sub->env_text = 0;
	}
	if (script) {
		free(d->script);
		d->script = script;
		sub->script_text = 0;
	}
	if (r->lend) {
		r->lent_env = env;
		r->lent_script = script;
	}
	return 0;
}

void jtext_in_unlend(struct jtext_in *r, union job_event *ev)
{
	struct job_desc *d;

	if (ev->head.type != EV_SUBMIT || ev->submit.desc_count != 1 || !ev->submit.desc)
		return;
	d = &ev->submit.desc[0];
	if (r->lent_env && d->env == r->lent_env)
		d->env = NULL;
	if (r->lent_script && d->script == r->lent_script)
		d->script = NULL;
	r->lent_env = r->lent_script = NULL;
}

uint64_t jtext_in_max_id(const struct jtext_in *r)
{
	return r->max_id;
}
