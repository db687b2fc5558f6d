module sandbank

go 1.26.0

require (
	github.com/shopspring/decimal v1.6.0
	go.etcd.io/bbolt v1.5.0
)

require (
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
