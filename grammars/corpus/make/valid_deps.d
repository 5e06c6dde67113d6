src/main.o: src/main.c src/util.h \
 src/config.h
src/util.o: src/util.c src/util.h
