//go:build tools

// Package tools records the helm command as a dependency so `go build` can resolve it
// from this module's go.mod and go.sum without network lookups beyond module downloads.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
