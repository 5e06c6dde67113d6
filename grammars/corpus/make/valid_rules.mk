ifeq ($(OS),Windows_NT)
  EXE := .exe
else
  EXE :=
endif

define banner
	@echo "== $(1) =="
endef

VERSION = $(shell git describe --tags 2>/dev/null || echo dev)
export VERSION

dist: build
	$(call banner,dist)
	tar -czf dist-$(VERSION).tgz build/

build:
	mkdir -p build
	@for f in a b c; do \
		echo $$f > build/$$f.txt; \
	done

include $(wildcard local.mk)
