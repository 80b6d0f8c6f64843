# dmatopics: a patch series written for Linux 7.3 (Debian's
# linux-source-7.3, from trixie-backports), with backports to Debian 12's
# linux-source-6.1 and linux-source-6.12 (TREE=7.3|6.1|6.12,
# kernel-patches/TREE/), and the harness that runs its KUnit suites booted
# in QEMU.  See README.md.

ARCH ?= x86_64
# The tree: 7.3 (default), or the backports 6.1 and 6.12, each with its
# series in kernel-patches/TREE/
TREE ?= 7.3
TREES := 7.3 6.1 6.12
# make check and make check-full: every tree, or the one given as TREE=
CHECK_TREES := $(if $(filter command line environment,$(origin TREE)),$(TREE),$(TREES))
FILTER ?=
ARCHES := x86_64 arm arm-lpae arm64
BENCH_ARCHES := x86_64 arm arm64
export CACHE TREE

.PHONY: help kunit e2e kcsan faults check check-full baseline rebase merge-results checkpatch lint-ci configs selftest tree refresh bench bench-loop check-series deps clean

help:
	@echo "make kunit [ARCH=x86_64|arm|arm-lpae|arm64] [FILTER='suite_glob[.test_glob]']"
	@echo "                     build baseline + series, run the KUnit suites in QEMU"
	@echo "make e2e [ARCH=x86_64|arm|arm-lpae|arm64]"
	@echo "                     boot that kernel with an O_DIRECT init and a virtio-blk disk"
	@echo "make check [ARCH=x]  the gate, on every tree (TREE=...: one): 7.3's suites and"
	@echo "                     e2e boot on x86_64 and arm; on each tree tools/testing/scatterlist"
	@echo "                     and checkpatch; plan, splats"
	@echo "make check-full [ARCH=x]  the whole matrix, every tree: every arch and configuration,"
	@echo "                     KCSAN, faults, on 6.1 the RFCs (ARCH=um, host, configs-ARCH,"
	@echo "                     rfc, kcsan, faults: that part alone; a CI job's: alltests-ARCH,"
	@echo "                     builds-ARCH, rfc-NAME[-ARCH], kcsan-series|-base|-rfc-NAME, faults-ARCH)"
	@echo "make kcsan           the KCSAN stage: x86_64 with KCSAN, suites, e2e, RFCs, baseline"
	@echo "make faults [ARCH=x] the fault stage: suites, O_DIRECT and UIO under failslab and"
	@echo "                     fail_page_alloc (default x86_64 and arm64)"
	@echo "   (kunit, check, check-full, check-series: TOPICS='scsi ...' applies only those"
	@echo "    topic series of kernel-patches/TREE/topics, in its order)"
	@echo "   (TREE=7.3 (default), TREE=6.1 or TREE=6.12: the tree and series a target"
	@echo "    works on; check and check-full: every tree unless TREE is given; the RFCs: 6.1 only)"
	@echo "make baseline [ARCH=x] [CHECK=1]  kunit/baseline/: KUNIT_ALL_TESTS on the untouched tree"
	@echo "make rebase VERSION=v  move the series and the pin to linux-source-TREE v"
	@echo "make merge-results DIRS=\"d1 d2\"  one summary over per-arch results/ directories"
	@echo "make checkpatch      scripts/checkpatch.pl --strict on every patch"
	@echo "make lint-ci         lint .github/workflows/ and .gitlab-ci.yml"
	@echo "make configs [ARCH=\"host um x86_64 arm\"]  the configuration stage alone"
	@echo "make selftest        the harness's own tests (no kernel build)"
	@echo "make tree            materialise the patched tree for editing"
	@echo "make refresh         export the tree's commits to kernel-patches/TREE/"
	@echo "make bench           collect the KTAP benchmark figures of x86_64, arm and arm64"
	@echo "make bench-loop      time cold / unchanged / one-patch-changed runs"
	@echo "make check-series [ARCH=...] [FROM=K]  build and run at every patch of the series (from the K-th)"

deps:
	scripts/trees/deps.sh $(ARCHES)

kunit:
	scripts/runs/kunit.sh '$(ARCH)' '$(FILTER)'

e2e:
	scripts/runs/e2e.sh '$(ARCH)' && scripts/results/check-results.py --arch '$(ARCH)-e2e' \
		--absent-options "$$(bash -c '. scripts/common.sh; absent_symbols')"

kcsan:
	scripts/runs/kcsan.sh && scripts/results/check-results.py --arch-list '' --stage kcsan

faults:
	scripts/runs/faults.sh $(if $(filter command line,$(origin ARCH)),$(ARCH)) && \
		scripts/results/check-results.py --arch-list '' --stage faults

# make check: the gate; make check-full: every arch and configuration
# (scripts/runs/check.sh says what each runs on each tree).  ARCH=x: that
# part alone (a CI matrix job), e.g. ARCH=um: the UML configuration.
check:
	CHECK_TREES='$(CHECK_TREES)' TIER=check scripts/runs/check.sh $(if $(filter command line,$(origin ARCH)),$(ARCH))

check-full:
	CHECK_TREES='$(CHECK_TREES)' TIER=full scripts/runs/check.sh $(if $(filter command line,$(origin ARCH)),$(ARCH))

baseline:
	CHECK='$(CHECK)' scripts/trees/make-baseline.sh $(if $(filter command line,$(origin ARCH)),$(ARCH))

rebase:
	scripts/trees/rebase.sh '$(VERSION)'

merge-results:
	scripts/results/merge-results.sh $(DIRS)

checkpatch:
	scripts/checks/checkpatch.sh

lint-ci:
	scripts/checks/lint-ci.sh

configs:
	TIER='$(or $(TIER),full)' scripts/runs/configs.sh $(if $(filter command line,$(origin ARCH)),$(ARCH))

selftest:
	scripts/checks/selftest.sh

tree:
	scripts/trees/tree.sh

refresh:
	scripts/trees/refresh.sh

bench:
	scripts/runs/bench.sh $(BENCH_ARCHES)

bench-loop:
	scripts/runs/bench-loop.sh $(BENCH_ARCHES)

check-series:
	scripts/checks/check-series.sh $(if $(filter command line,$(origin ARCH)),$(ARCH),x86_64 arm)

clean:
	rm -rf results
