//go:build corpus

package main

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// TestCommittedModel: the trainer, run on the corpora's half A with the
// options the committed model names, writes tailcut_model.go byte for
// byte (go test -tags corpus ./bench/tailcut).
func TestCommittedModel(t *testing.T) {
	dir := "../../../shared/corpus"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no corpus")
	}
	want, err := os.ReadFile("../../internal/content/tailcut_model.go")
	if err != nil {
		t.Fatal(err)
	}
	o := options{folds: 5, on: false}
	if !bytes.Contains(want, []byte("go run ./bench/tailcut "+o.String()+" -out")) {
		t.Fatalf("the committed model names other options than %q", o)
	}
	saved := opt
	opt = o
	defer func() { opt = saved }()
	pages, err := load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := train(pages, o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the trainer writes another model than tailcut_model.go:\n%s", got)
	}
}
