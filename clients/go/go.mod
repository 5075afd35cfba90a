module github.com/a4aa/a4aa/clients/go

go 1.19
