package index

import "syscall"

const mapPopulate = syscall.MAP_POPULATE
