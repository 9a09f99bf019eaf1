module github.com/ctxd/ctxd

go 1.26
