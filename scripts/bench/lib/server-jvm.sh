# Sourced by the benchmark scripts: kvlab's default server JVM options (org.kvlab.cluster.ServerJvm.DEFAULT_OPTIONS),
# read from a kvlab jar's constant pool, so a script measures with the options that jar's servers start with.
# Usage: server_jvm_default JAR   (prints the options; prints nothing if the jar has no such constant)
server_jvm_default() {
  javap -constants -cp "$1" org.kvlab.cluster.ServerJvm 2>/dev/null | sed -n 's/.*DEFAULT_OPTIONS = "\(.*\)";/\1/p'
}
