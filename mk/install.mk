# mk/install.mk - `make install` and `make uninstall` (included by Makefile).
#   make install PREFIX=/usr/local DESTDIR=/tmp/root
# installs what `make` built in $(BUILD):
#   $(SBINDIR)          rotactld rotad rotadbd rotarestd
#   $(BINDIR)           rota, and sbatch, srun, ... as relative links to it;
#                       rota-sim (what `rota sim` executes, beside rota)
#   $(LIBEXECDIR)/rota  rotastepd (rotad forks its step daemons itself; the
#                       program is for tools and tests that play rotad) and
#                       rotapmix (a step's PMIx server, srun --mpi=pmix)
#   $(SYSTEMDUNITDIR)   rotactld.service rotad.service rotadbd.service, from
#                       etc/systemd/*.service.in with @SBINDIR@ written in
#   $(MANDIR)/man{1,5,8} the pages `make man` wrote in $(BUILD)/man (mk/man.mk)
# Nothing is written outside $(DESTDIR).  Daemons read /etc/slurm/slurm.conf,
# or $SLURM_CONF (the units read it from /etc/default/<daemon>).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install

INSTALL_SBIN = rotactld rotad rotadbd rotarestd
INSTALL_UNITS = $(patsubst etc/systemd/%.in,%,$(wildcard etc/systemd/*.service.in))

install: $(PROGS) $(MAN_FILES)
	$(INSTALL) -d -m 0755 $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(LIBEXECDIR)/rota $(DESTDIR)$(SYSTEMDUNITDIR) \
		$(addprefix $(DESTDIR)$(MANDIR)/,man1 man5 man8)
	for s in 1 5 8; do \
		$(INSTALL) -m 0644 $(MAN_DIR)/man$$s/*.$$s $(DESTDIR)$(MANDIR)/man$$s || exit 1; \
	done
	$(INSTALL) -m 0755 $(addprefix $(BIN)/,$(INSTALL_SBIN)) $(DESTDIR)$(SBINDIR)
	$(INSTALL) -m 0755 $(BIN)/rota $(BIN)/rota-sim $(DESTDIR)$(BINDIR)
	for l in $(CLI_LINKS); do ln -sfn rota $(DESTDIR)$(BINDIR)/$$l || exit 1; done
	$(INSTALL) -m 0755 $(BIN)/rotastepd $(BIN)/rotapmix $(DESTDIR)$(LIBEXECDIR)/rota
	for u in $(INSTALL_UNITS); do \
		sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
		    etc/systemd/$$u.in > $(DESTDIR)$(SYSTEMDUNITDIR)/$$u.tmp && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$u.tmp && \
		mv -f $(DESTDIR)$(SYSTEMDUNITDIR)/$$u.tmp $(DESTDIR)$(SYSTEMDUNITDIR)/$$u || exit 1; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,$(INSTALL_SBIN)) \
	      $(addprefix $(DESTDIR)$(BINDIR)/,rota rota-sim $(CLI_LINKS)) \
	      $(DESTDIR)$(LIBEXECDIR)/rota/rotastepd $(DESTDIR)$(LIBEXECDIR)/rota/rotapmix \
	      $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(INSTALL_UNITS)) \
	      $(patsubst $(MAN_DIR)/%,$(DESTDIR)$(MANDIR)/%,$(MAN_FILES))
	-rmdir $(DESTDIR)$(LIBEXECDIR)/rota 2>/dev/null

.PHONY: install uninstall
