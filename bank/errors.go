package bank

import "errors"

// ErrNotFound is returned by storage when a record does not exist. Services
// turn it into a RESOURCE_UNKNOWN *apierr.Error that names what was looked
// for.
var ErrNotFound = errors.New("not found")
