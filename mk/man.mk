# mk/man.mk - the man pages, into $(BUILD)/man/man{1,5,8}.
#   make man   section 5 generated from the parsers' key tables by
#              $(BUILD)/tools/conf_doc (a key without a description in
#              src/common/conf_doc.c fails here); sections 1 and 8 copied from
#              man/man1 and man/man8.  An install rule takes $(BUILD)/man/man*/.
MAN_DIR = $(BUILD)/man
MAN5_PAGES = slurm.conf gres.conf cgroup.conf topology.conf
MAN_VERSION ?= $(shell git describe --always --dirty 2>/dev/null)
man1_src = $(wildcard man/man1/*.1)
man8_src = $(wildcard man/man8/*.8)
MAN_FILES = $(patsubst %,$(MAN_DIR)/man5/%.5,$(MAN5_PAGES)) \
	    $(patsubst man/%,$(MAN_DIR)/%,$(man1_src) $(man8_src))

$(BUILD)/tools/conf_doc: tools/conf_doc.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIBA) $(ALL_LDFLAGS) $(LIBS)

$(MAN_DIR)/man5/%.5: $(BUILD)/tools/conf_doc
	@mkdir -p $(dir $@)
	$(BUILD)/tools/conf_doc $* "$(MAN_VERSION)" > $@.tmp && mv $@.tmp $@

$(MAN_DIR)/man1/%: man/man1/%
	@mkdir -p $(dir $@)
	cp $< $@
$(MAN_DIR)/man8/%: man/man8/%
	@mkdir -p $(dir $@)
	cp $< $@

man: $(MAN_FILES)
all: man

.PHONY: man

# the generator is C too: make format-check covers it
format-check: format-check-tools
format-check-tools:
	clang-format --dry-run --Werror $(wildcard tools/*.c)
.PHONY: format-check-tools

# doc/compat.md's "Job options (generated)" section, from the option table of
# sbatch, srun and salloc (tools/compat_doc; tests/integration/test_help.py
# fails when the file is stale).  make compat-doc rewrites the section, which
# is the file's last.
COMPAT_DOC_OBJS = $(OBJ)/cli/jobopt_table.o $(OBJ)/cli/jobopt_help.o
$(BUILD)/tools/compat_doc: tools/compat_doc.c $(COMPAT_DOC_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(COMPAT_DOC_OBJS) $(ALL_LDFLAGS)
all: $(BUILD)/tools/compat_doc

compat-doc: $(BUILD)/tools/compat_doc
	{ sed '/^## Job options (generated)/,$$d' doc/compat.md; \
	  $(BUILD)/tools/compat_doc; } > doc/compat.md.tmp && mv doc/compat.md.tmp doc/compat.md
.PHONY: compat-doc
