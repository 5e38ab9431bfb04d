# shellcheck shell=bash
# A private apt state in the cache, for another Debian suite's packages
# without touching the host's apt state (sourced by guest-kernel.sh and
# rdma-core.sh; they define say and die).
#
# apt_private DIR SOURCES-LINE...: DIR gets its own sources list (the
# lines given), lists, archives and status (none: nothing is installed),
# plus DIR/debs for downloads; sets the array apt_opts for apt-get and
# apt-cache, then runs apt-get update.
apt_private() {
    local dir=$1
    shift
    mkdir -p "$dir"/{etc/sources.list.d,state/lists/partial,cache/archives/partial,debs}
    printf '%s\n' "$@" > "$dir/etc/sources.list"
    apt_opts=(-o "Dir::State=$dir/state" -o "Dir::Cache=$dir/cache"
        -o "Dir::Etc::SourceList=$dir/etc/sources.list"
        -o "Dir::Etc::SourceParts=$dir/etc/sources.list.d"
        -o "Dir::State::status=/dev/null" -o "APT::Sandbox::User=root")
    say "apt-get update (private state in $dir)"
    apt-get "${apt_opts[@]}" -qq update || die "apt-get update in $dir failed"
}
