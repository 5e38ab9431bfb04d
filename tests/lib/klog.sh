# shellcheck shell=bash
# Guest tests: the kernel log after a marker the test wrote to /dev/kmsg.
#   klog_since MARK    the lines after the first line containing MARK
#   klog_oopses MARK   those of them that report a crash or a kernel
#                      checker (oops, BUG, WARNING, KASAN, UBSAN, ...)
# and around the mark scripts/vm/stage2.sh writes before it loads the first
# module of ours (what comes before it is the kernel's own boot):
#   klog_ours          the lines from that mark on; all of them if the log
#                      no longer holds it
#   klog_boot_reports  the lines before it that report a crash or a kernel
#                      checker; none if the log no longer holds it

klog_since() {
    dmesg 2>&1 | awk -v m="$1" 'seen { print } index($0, m) { seen = 1 }'
}

klog_oopses() {
    klog_since "$1" | grep -E 'KASAN|UBSAN|BUG:|WARNING:|kernel BUG|Oops|general protection fault|Call Trace|refcount_t:|list_(add|del) corruption'
}

KLOG_STAGE2_MARK="orca-vm: stage 2 loading modules"

klog_ours() {
    dmesg 2>&1 | awk -v m="$KLOG_STAGE2_MARK" '
        seen { print; next }
        index($0, m) { seen = 1; print; next }
        { boot = boot $0 "\n" }
        END { if (!seen) printf "%s", boot }'
}

klog_boot_reports() {
    dmesg 2>&1 | awk -v m="$KLOG_STAGE2_MARK" 'index($0, m) { printf "%s", boot; exit } { boot = boot $0 "\n" }' |
        grep -E 'KASAN|UBSAN|BUG:|WARNING:|kernel BUG|Oops'
}
