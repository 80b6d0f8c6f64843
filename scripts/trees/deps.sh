#!/usr/bin/env bash
# Install the Debian packages the build and the QEMU runs need, only those
# that are missing, and linux-source-TREE at the version linux-source.pin
# names (up- or downgraded to it).  If the archive no longer has that
# version, say so and name the command that moves to the newest.  A tree
# whose package comes from another suite (kernel-patches/TREE/apt-source,
# 7.3's trixie-backports) gets that source added, taking only its
# package.  As
# non-root, print the exact apt-get command instead.
#
# usage: scripts/trees/deps.sh [ARCH | PART...]     (default: every supported
#        arch; PART: a part of make check or check-full, lint, bench)
. "$(dirname "$0")/../common.sh"

pin=$(pinned_version)
pkgs="build-essential flex bison bc libelf-dev libssl-dev
      python3-ply python3-git python3-junit.xml
      python3 ccache xz-utils git sparse"
[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
# The parts of make check-full that a CI job runs alone need what their
# arch needs: configs-ARCH, alltests-ARCH, builds-ARCH (the configuration
# stage on ARCH) and rfc-NAME[-ARCH] (an RFC, on the arches it names);
# kcsan-* what the KCSAN stage needs.
items=()
for arch in "$@"; do
	case "$arch" in
	um | host | rfc | lint | bench | kcsan | kcsan-series | kcsan-base | faults)
		items+=("$arch") ;;
	kcsan-rfc-*) kcsan_rfc_check "$arch"; items+=(kcsan) ;;
	rfc-*)
		runs=$(rfc_runs "$arch") || exit 1
		read -r -a a <<<"$(echo "$runs" | cut -d' ' -f2 | sort -u | tr '\n' ' ')"
		items+=("${a[@]}") ;;
	configs-x86_64 | configs-arm | alltests-x86_64 | alltests-arm | builds-x86_64 | builds-arm)
		items+=("${arch#*-}") ;;
	faults-*) check_arch "${arch#*-}"; items+=("$arch") ;;
	*) check_arch "$arch"; items+=("$arch") ;;
	esac
done
for arch in "${items[@]}"; do
	case "$arch" in
	# faults-ARCH: the fault stage on that arch alone (a CI job)
	x86_64 | faults-x86_64) pkgs="$pkgs qemu-system-x86" ;;
	arm | arm-lpae | faults-arm | faults-arm-lpae) pkgs="$pkgs qemu-system-arm device-tree-compiler gcc-arm-linux-gnueabihf libc6-dev-armhf-cross" ;;
	arm64 | faults-arm64) pkgs="$pkgs qemu-system-arm device-tree-compiler gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
	# host: tools/testing/scatterlist; rfc: the RFC stage (x86_64, arm64)
	um | host) ;;
	# the stages of make check-full: KCSAN on x86_64, faults on x86_64
	# and arm64
	kcsan | kcsan-series | kcsan-base) pkgs="$pkgs qemu-system-x86" ;;
	rfc) pkgs="$pkgs qemu-system-x86 qemu-system-arm device-tree-compiler gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
	faults) pkgs="$pkgs qemu-system-x86 qemu-system-arm device-tree-compiler gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
	bench) pkgs="$pkgs gnuplot-nox" ;;
	# make lint-ci: Node.js and npm, from Debian unless already there
	lint) command -v node >/dev/null && command -v npm >/dev/null ||
		pkgs="$pkgs nodejs npm" ;;
	esac
done

missing=
for p in $pkgs; do
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || s=
	[ "$s" = installed ] || missing="$missing $p"
done
have=$(source_version)
[ "$have" = "$pin" ] || missing="$missing $PACKAGE=$pin"
[ -z "$missing" ] && exit 0

cmd="apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends --allow-downgrades$missing"
if [ "$(id -u)" != 0 ]; then
	[ -z "$(apt_source_suite)" ] || [ "$have" = "$pin" ] ||
		die "missing Debian packages:$missing
$PACKAGE comes from $(apt_source_suite) ($PNAME/apt-source), which this script
adds as an apt source taking only that package: run it as root,
  $0 $*"
	die "missing Debian packages:$missing
run as root:  apt-get update && $cmd"
fi
note "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# A tree whose package is not in Debian 12's suites (kernel-patches/TREE/
# apt-source): that source first, alone, so that a source out of reach
# or without the pinned version stops here naming it, with nothing
# installed, and never gets in the way of the other trees' packages.
[ "$have" = "$pin" ] || apt_source_add "$pin"
apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null || die "apt-get update failed"
if [ "$have" != "$pin" ] &&
	! apt-cache madison $PACKAGE | awk '{ print $3 }' | grep -qxF "$pin"; then
	newest=$(apt-cache madison $PACKAGE | awk 'NR == 1 { print $3 }')
	# The newest version the apt sources have is older than the pin: they
	# lack the suite the pin comes from (Debian 12's kernel updates come
	# in bookworm-security and bookworm-updates), and a rebase to it
	# would go backwards.
	if [ -z "$newest" ] || dpkg --compare-versions "$newest" lt "$pin"; then
		found="no $PACKAGE"
		[ -z "$newest" ] || found="only $newest, older than that"
		die "$PACKAGE $pin, the version the series is tested on
($PNAME/linux-source.pin), is not in this machine's apt sources, which have
$found: a suite is missing from them (/etc/apt/sources.list,
/etc/apt/sources.list.d/; Debian 12's kernel updates come in
bookworm-security and bookworm-updates).  Nothing was installed."
	fi
	die "$PACKAGE $pin, the version the series is tested on
($PNAME/linux-source.pin), is no longer in the archive$([ "$have" = unknown ] || echo " (installed: $have)").
Move the series to the newest version the archive has:
  $(rebase_cmd) VERSION=${newest:-NEWEST}"
fi
[ "$have" = "$pin" ] || [ "$have" = unknown ] ||
	note "$PACKAGE $have is installed; installing $pin, the version of $PNAME/linux-source.pin"
$cmd || die "'$cmd' failed"
