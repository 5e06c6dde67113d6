SRCS := $(wildcard src/*.c
all:
	echo $(SRCS)
