module sandbank

go 1.26.0

require (
	github.com/shopspring/decimal v1.6.0
	go.etcd.io/bbolt v1.5.0
)

require golang.org/x/sys v0.45.0 // indirect
