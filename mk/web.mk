# mk/web.mk - the dashboard's files (web/) built into rotarestd: tools/embed
# writes them as C arrays (src/restd/assets.h) into $(BUILD)/gen.
WEB_FILES = $(sort $(wildcard web/*.html web/*.js web/*.css))
WEB_C = $(BUILD)/gen/web_assets.c
WEB_O = $(BUILD)/gen/web_assets.o

$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS)
$(WEB_C): $(BUILD)/tools/embed $(WEB_FILES)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed $(WEB_FILES) > $@.tmp && mv $@.tmp $@
$(WEB_O): $(WEB_C)
	$(CC) $(ALL_CFLAGS) -Wno-missing-variable-declarations -c $< -o $@
