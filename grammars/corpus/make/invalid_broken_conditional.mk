ifeq ($(A),1
X = 1
endif
