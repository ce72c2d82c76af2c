# Rota - one non-recursive Makefile.
#   make            build everything into build/ (warnings are errors)
#   make SAN=1      build with ASan+UBSan into build-san/
#   make test       unit tests (cmocka) + integration tests (pytest)
#   make up / down  start / stop the local cluster in ./cluster
#   make fuzz       build the libFuzzer harnesses (clang) into build-fuzz/ and run
#                   each for FUZZ_TIME seconds (tests/fuzz/run.sh)
BUILD ?= build
ifeq ($(SAN),1)
BUILD = build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
CC ?= cc
# Debian's interpreter: it is the one with python3-pytest
PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
# libpq: its header alone (dbd/pq_dl.h loads the library at run time)
PKGS = libevent jansson munge zlib libisal libpq openssl
# CFLAGS and LDFLAGS are the user's (make CFLAGS=-O0 keeps everything below);
# what the build needs is added in ALL_CFLAGS / ALL_LDFLAGS, as git does.
CFLAGS ?= -O2 -g
ALL_CFLAGS = $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wvla -Wformat=2 \
	     -Wno-unused-parameter -Wno-missing-field-initializers -Isrc -D_GNU_SOURCE \
	     $(SANFLAGS) $(shell pkg-config --cflags $(PKGS))
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
# Linked in, not shared: a process starts with libc alone (and libisal in the
# controller).  sbatch and squeue are started once per call and each shared
# library costs every start its mappings and relocations; libmunge is loaded
# when a MUNGE credential is first made or checked (proto/munge_dl.h).
# libisal is loaded only where something calls it (ctld/crc_isal.c), libm
# where rota sim's predictor does (a static libm needs a static libc).
STATIC_PKGS = libevent jansson zlib
LIBS = -Wl,-Bstatic $(shell pkg-config --libs $(STATIC_PKGS)) -Wl,-Bdynamic \
       -Wl,--as-needed $(shell pkg-config --libs libisal) -lm

OBJ = $(BUILD)/obj
BIN = $(BUILD)/bin

common_src = $(wildcard src/common/*.c)
proto_src  = $(wildcard src/proto/*.c)
sched_src  = $(wildcard src/sched/*.c)
ctld_src   = $(wildcard src/ctld/*.c)
noded_src  = $(wildcard src/noded/*.c)
stepd_src  = $(wildcard src/stepd/*.c)
dbd_src    = $(wildcard src/dbd/*.c)
restd_src  = $(wildcard src/restd/*.c)
cli_src    = $(wildcard src/cli/*.c)

objs = $(patsubst src/%.c,$(OBJ)/%.o,$(1))
LIBA = $(BUILD)/lib/librota.a
lib_objs = $(call objs,$(common_src) $(proto_src) $(sched_src))

CLI_LINKS = sbatch srun salloc squeue sinfo scancel scontrol sprio sdiag sacct sacctmgr \
	    sshare sreport sstat sbcast strigger sattach scrontab
PROGS = $(BIN)/rotactld $(BIN)/rotad $(BIN)/rotastepd $(BIN)/rotapmix $(BIN)/rotadbd \
	$(BIN)/rotarestd \
	$(BIN)/rota $(BIN)/rota-sim

all: $(PROGS) $(addprefix $(BIN)/,$(CLI_LINKS)) unit-build bench-build \
     $(BUILD)/compile_commands.json

# For clangd and other tools (they look in build/): how each source is compiled.
all_src = $(common_src) $(proto_src) $(sched_src) $(ctld_src) $(noded_src) \
	  $(stepd_src) $(dbd_src) $(restd_src) $(cli_src) $(wildcard tests/unit/*.c bench/*.c)
$(BUILD)/compile_commands.json: Makefile $(all_src)
	@mkdir -p $(dir $@)
	@{ echo '['; sep=' '; for f in $(all_src); do \
		printf '%s{"directory": "%s", "file": "%s", "command": "%s -c %s"}\n' \
		    "$$sep" "$(CURDIR)" "$$f" "$(CC) $(ALL_CFLAGS)" "$$f"; sep=','; \
	done; echo ']'; } > $@.tmp && mv $@.tmp $@

$(OBJ)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIBA): $(lib_objs)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/rotactld: $(call objs,$(ctld_src)) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
# rotad forks its step daemons without an exec (stepd/stepd_main.h) and owns
# their cgroups: it links the step daemon but rotastepd's own main
stepd_objs = $(call objs,$(filter-out src/stepd/rotastepd.c,$(stepd_src)))
# -z now: every symbol bound when rotad starts, not in each forked step daemon
# (a lazy binding writes the GOT: a page copied, ~6 % of a step daemon's CPU)
$(BIN)/rotad: $(call objs,$(noded_src)) $(stepd_objs) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -Wl,-z,now -o $@ $^ $(LIBS)
$(BIN)/rotastepd: $(call objs,$(stepd_src)) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
# rotapmix: a step's PMIx server (srun --mpi=pmix), the one program linked
# with OpenPMIx (libpmix-dev; its headers as system headers)
PMIX_CFLAGS = $(patsubst -I%,-isystem %,$(filter-out -I/usr/include,$(shell pkg-config --cflags pmix)))
$(OBJ)/pmix/%.o: ALL_CFLAGS += $(PMIX_CFLAGS)
$(BIN)/rotapmix: $(OBJ)/pmix/rotapmix.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(shell pkg-config --libs pmix) -lpthread
include mk/web.mk
# rotadbd reads the journal's events without applying them: the events'
# codec alone of the controller's modules
$(BIN)/rotadbd: $(call objs,$(dbd_src)) $(OBJ)/ctld/job_event_codec.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -lsqlite3
$(BIN)/rotarestd: $(call objs,$(restd_src)) $(WEB_O) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(shell pkg-config --libs openssl)
# rota sim is rota-sim (cli/sim_main.c): the commands started per call do not
# load libm, which only its predictor needs; it reads the journal's events
# (--from-journal) as rotadbd does
cli_sim_src = $(filter src/cli/sim%.c,$(cli_src))
# -no-pie: the commands' table of pointers (options, fields, commands) is
# not relocated at each start: 3,400 relocations and 30 page faults fewer,
# 0.6 ms of a 6 ms `squeue --version` (doc/performance.md).  They run as
# their user and take no privilege; the daemons stay position-independent.
$(BIN)/rota: $(call objs,$(filter-out $(cli_sim_src),$(cli_src))) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -no-pie -o $@ $^ $(LIBS)
$(BIN)/rota-sim: $(call objs,$(filter-out src/cli/main.c,$(cli_src))) \
		 $(OBJ)/ctld/job_event_codec.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
$(addprefix $(BIN)/,$(CLI_LINKS)): $(BIN)/rota
	ln -sf rota $@

# Unit tests: tests/unit/test_X.c -> $(BUILD)/tests/test_X
unit_src = $(wildcard tests/unit/test_*.c)
unit_bins = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(unit_src))
unit-build: $(unit_bins)
$(BUILD)/tests/%: tests/unit/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIBA) $(ALL_LDFLAGS) $(LIBS) -lcmocka

# test_nvml loads a fake libnvidia-ml built beside it
$(BUILD)/tests/libfake_nvml.so: tests/unit/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -fPIC -shared -o $@ $<
$(BUILD)/tests/test_nvml: $(BUILD)/tests/libfake_nvml.so
# test_cgroup compiles rotastepd's cgroup.c in (its helpers are static)
$(BUILD)/tests/test_cgroup: src/stepd/cgroup.c src/stepd/cgroup.h src/stepd/devcg.c src/stepd/devcg.h
$(BUILD)/tests/test_devcg: src/stepd/devcg.c src/stepd/devcg.h
# test_ranksort compiles ranksort.c in
$(BUILD)/tests/test_ranksort: src/common/ranksort.c src/common/ranksort.h
# test_owner compiles the controller's owner.c in
$(BUILD)/tests/test_owner: src/ctld/owner.c src/ctld/owner.h
# test_sstat_fields compiles sstat's sstat_fields.c in
$(BUILD)/tests/test_sstat_fields: src/cli/sstat_fields.c src/cli/sstat.h
# test_sim_history compiles rota sim's journal reader and SWF export in,
# with the events' codec
$(BUILD)/tests/test_sim_history: src/cli/sim_history.c src/cli/sim_history_swf.c \
	src/cli/sim_history.h src/ctld/job_event_codec.c
# test_sim_whatif compiles rota sim's what-if replay in
$(BUILD)/tests/test_sim_whatif: src/cli/sim_whatif.c src/cli/sim_whatif.h src/cli/sim_history.h \
	src/cli/sim_whatif_nodes.c src/cli/sim_whatif_nodes.h
# test_pmi_kvs compiles rotastepd's pmi_kvs.c and srun's srun_fence.c in
$(BUILD)/tests/test_pmi_kvs: src/stepd/pmi_kvs.c src/stepd/pmi_kvs.h src/cli/srun_fence.c \
	src/cli/srun_fence.h
# test_gidcache compiles rotad's gidcache.c in
$(BUILD)/tests/test_gidcache: src/noded/gidcache.c src/noded/gidcache.h
# test_node_gres compiles the controller's node_gres.c in
$(BUILD)/tests/test_node_gres: src/ctld/node_gres.c src/ctld/node_gres.h src/ctld/node_mgr.h
# test_step_alloc compiles the controller's step_alloc.c in
$(BUILD)/tests/test_step_alloc: src/ctld/step_alloc.c src/ctld/step_alloc.h src/ctld/job_mgr.h

# Benchmarks written in C: bench/X.c -> $(BUILD)/bench/X
bench_src = $(wildcard bench/*.c)
bench_bins = $(patsubst bench/%.c,$(BUILD)/bench/%,$(bench_src))
bench-build: $(bench_bins)
$(BUILD)/bench/%: bench/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIBA) $(ALL_LDFLAGS) $(LIBS)
# sched_scale drives the controller's own modules (all but its main.c)
ctld_mod_objs = $(call objs,$(filter-out src/ctld/main.c,$(ctld_src)))
$(BUILD)/bench/sched_scale: bench/sched_scale.c $(ctld_mod_objs) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(ctld_mod_objs) $(LIBA) $(ALL_LDFLAGS) $(LIBS)
# test_job_event, test_ops, test_replay and test_reboot drive the controller's
# own modules
ctld_unit_bins = $(BUILD)/tests/test_job_event $(BUILD)/tests/test_ops $(BUILD)/tests/test_assoc \
	$(BUILD)/tests/test_part_update \
	$(BUILD)/tests/test_replay $(BUILD)/tests/test_reboot
$(ctld_unit_bins): $(BUILD)/tests/%: tests/unit/%.c $(ctld_mod_objs) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(ctld_mod_objs) $(LIBA) $(ALL_LDFLAGS) $(LIBS) -lcmocka

unit: unit-build
	@set -e; for t in $(unit_bins); do echo "== $$t"; $$t; done

# The system tests, a module per worker (pytest-xdist, when installed): each
# module brings up its own clusters, on ports and in directories of its own.
# PYTEST_JOBS=1 runs them one after another.
PYTEST_JOBS ?= 2
PYTEST_XDIST = $(shell $(PYTHON) -c 'import xdist' 2>/dev/null && test "$(PYTEST_JOBS)" != 1 && printf -- '-n %s --dist loadfile' $(PYTEST_JOBS))
integration: all
	ROTA_BUILD=$(abspath $(BUILD)) $(PYTHON) -m pytest -q $(PYTEST_XDIST) tests/integration

test: unit integration

up: all
	$(BIN)/rota up --dir $(CURDIR)/cluster
down:
	$(BIN)/rota down --dir $(CURDIR)/cluster

# Fuzzing: tests/fuzz/fuzz_X.c -> build-fuzz/fuzz_X, built with clang, libFuzzer,
# ASan and UBSan over its own copy of the library (the parsers, the codec and the
# controller's modules but its main.c).  FUZZ_TARGETS picks some; FUZZ_TIME is
# the seconds each runs.
FUZZ_BUILD = build-fuzz
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	   -fno-omit-frame-pointer
FUZZ_CFLAGS = -O1 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	      -Wno-missing-field-initializers -Isrc -D_GNU_SOURCE $(FUZZ_SAN) \
	      $(shell pkg-config --cflags $(PKGS))
fuzz_src = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(fuzz_src))
FUZZ_LIBA = $(FUZZ_BUILD)/lib/librota.a
fuzz_lib_src = $(common_src) $(proto_src) $(sched_src) $(filter-out src/ctld/main.c,$(ctld_src))
fuzz_lib_objs = $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(fuzz_lib_src))

$(FUZZ_BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_LIBA): $(fuzz_lib_objs)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIBA)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBA) $(LIBS)

fuzz-build: $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_TARGETS))
fuzz: fuzz-build
	FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run.sh $(abspath $(FUZZ_BUILD)) $(FUZZ_TARGETS)

clean:
	rm -rf build build-san build-fuzz

format-check:
	clang-format --dry-run --Werror $(wildcard src/*/*.c src/*/*.h tests/unit/*.c bench/*.c \
		tests/fuzz/*.c tests/fuzz/*.h)

.PHONY: all bench-build unit unit-build integration test up down clean format-check \
	fuzz fuzz-build
include mk/man.mk
include mk/install.mk
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
-include $(shell find $(FUZZ_BUILD)/obj -name '*.d' 2>/dev/null)
