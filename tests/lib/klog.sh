# shellcheck shell=bash
# Guest tests: the kernel log after a marker the test wrote to /dev/kmsg.
#   klog_since MARK    the lines after the first line containing MARK
#   klog_oopses MARK   those of them that report a crash or a kernel
#                      checker (oops, BUG, WARNING, KASAN, UBSAN, ...)

klog_since() {
    dmesg 2>&1 | awk -v m="$1" 'seen { print } index($0, m) { seen = 1 }'
}

klog_oopses() {
    klog_since "$1" | grep -E 'KASAN|UBSAN|BUG:|WARNING:|kernel BUG|Oops|general protection fault|Call Trace|refcount_t:|list_(add|del) corruption'
}
