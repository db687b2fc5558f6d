package psd2api_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/reqlog"
	"sandbank/bank/scenario"
)

// knownStateTransactions counts the transactions of the known state, as
// a new bank exports them.
func knownStateTransactions(t *testing.T) int {
	t.Helper()
	b := apptest.Start(t, apptest.Options{})
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	f, err := scenario.Summarise(bytes.NewReader(r.Body))
	if err != nil || f.Err != nil {
		t.Fatalf("summarise the known state: %v %v", err, f.Err)
	}
	return f.Counts.Transactions
}

// TestScenarioExport_StreamsASignedAnswerItNeverHoldsAtScale exports a bank with
// 200,000 transactions more than the known state (apptest.Records) through
// HTTP, in this process, reading the answer as it comes into a file: the
// heap never grows by a quarter of the answer (apptest.HeapBudget), the answer is signed (Digest and
// Signature) and verifies with the project's verifier and with openssl,
// the request log keeps its first 64 KiB, and the temporary file the
// answer was signed in is gone.
func TestScenarioExport_StreamsASignedAnswerItNeverHoldsAtScale(t *testing.T) {
	apptest.AtScale(t)
	n := apptest.Records(t, "SANDBANK_EXPORT_TRANSACTIONS", 200_000)
	known := knownStateTransactions(t)
	b := apptest.Start(t, apptest.Options{DataPath: apptest.BigFixture(t, n)})
	op := b.Operator()
	dir, spills := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", spills) // where the answer's temporary file goes

	req := b.Request("GET", "/v1/sandbox/scenario?note=streamed", nil)
	if err := op.Signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	watch := apptest.WatchHeap()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.Create(filepath.Join(dir, "export.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.New()
	size, err := io.Copy(io.MultiWriter(file, sum), resp.Body)
	_ = resp.Body.Close()
	base, peak := watch.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.ContentLength != size {
		t.Fatalf("export: %d, Content-Length %d, %d bytes read", resp.StatusCode, resp.ContentLength, size)
	}
	t.Logf("%d bytes streamed; heap %d MiB before, at most %d MiB during", size, base>>20, peak>>20)
	if grew := int64(peak) - int64(base); grew > apptest.HeapBudget(size) {
		t.Errorf("the heap grew by %d MiB while the bank exported %d MiB: it holds the answer", grew>>20, size>>20)
	}

	// Signed, and verified by the project's verifier and by openssl.
	digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum.Sum(nil))
	if err := httpsig.VerifyResponseDigest(resp.Header, digest, b.BankCert.Cert); err != nil {
		t.Fatalf("the export's signature: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bank.pem"), pki.EncodeCert(b.BankCert.Cert), 0o600); err != nil {
		t.Fatal(err)
	}
	pub := run(t, dir, nil, "openssl", "x509", "-in", "bank.pem", "-pubkey", "-noout")
	if err := os.WriteFile(filepath.Join(dir, "bank-pub.pem"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	opensslVerifyResponse(t, dir, resp.Header, "export.json", "bank-pub.pem")

	// The whole scenario, read back as a stream.
	f, err := os.Open(filepath.Join(dir, "export.json"))
	if err != nil {
		t.Fatal(err)
	}
	summary, err := scenario.Summarise(f)
	_ = f.Close()
	if err != nil || summary.Err != nil || summary.Note != "streamed" {
		t.Fatalf("the export does not read back: %v %v %+v", err, summary.Err, summary)
	}
	if got := summary.Counts.Transactions; got != n+known {
		t.Errorf("the export holds %d transactions, want %d", got, n+known)
	}

	// The request log holds the answer's first bytes and its size.
	e := b.Logged(req.Header.Get("X-Request-ID"))
	head := make([]byte, reqlog.MaxLoggedBody)
	f, err = os.Open(filepath.Join(dir, "export.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadFull(f, head)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if int64(e.ResponseBodySize) != size || !e.BodiesCut || !bytes.Equal(e.ResponseBody, head) {
		t.Errorf("the log holds %d bytes of the answer (cut %v), size %d; want its first %d, size %d", len(e.ResponseBody), e.BodiesCut, e.ResponseBodySize, len(head), size)
	}
	if left, _ := os.ReadDir(spills); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestScenarioExport_LargeAnswerWithWarnings sends the same export twice
// with one X-Request-ID: the second answer, recorded in a temporary file,
// gets the bank's note as a WARNING tppMessage at its end, as an answer
// held in memory would, and its Digest and Signature cover it.
func TestScenarioExport_LargeAnswerWithWarnings(t *testing.T) {
	b := apptest.Start(t, apptest.Options{DataPath: apptest.BigFixture(t, 5_000)})
	first := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil, "X-Request-ID: export-twice")
	second := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil, "X-Request-ID: export-twice")
	if first.Status != 200 || second.Status != 200 || len(first.Body) < 2<<20 {
		t.Fatalf("exports: %d, %d, %d bytes", first.Status, second.Status, len(first.Body))
	}
	// The same scenario (but for the clock's time, which moved between
	// the two, and may be written with another number of digits), with
	// tppMessages last.
	cut := bytes.LastIndex(second.Body, []byte(`,"tppMessages":[`))
	if bytes.Contains(first.Body, []byte(`"tppMessages"`)) || cut < 0 || !bytes.HasSuffix(second.Body, []byte("]}\n")) {
		t.Fatalf("the second answer does not end with tppMessages: ...%s", second.Body[max(0, len(second.Body)-300):])
	}
	var one, two map[string]json.RawMessage
	if err := json.Unmarshal(first.Body, &one); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(append(bytes.Clone(second.Body[:cut]), '}'), &two); err != nil {
		t.Fatalf("the second answer without its tppMessages: %v", err)
	}
	delete(one, "clock")
	delete(two, "clock")
	if !reflect.DeepEqual(one, two) {
		t.Fatal("the second answer is not the first scenario with tppMessages at its end")
	}
	var warned struct {
		Format      string `json:"format"`
		TPPMessages []struct {
			Category, Path, Text string
		} `json:"tppMessages"`
	}
	second.JSON(t, &warned)
	if warned.Format != scenario.Format || len(warned.TPPMessages) != 1 || warned.TPPMessages[0].Category != "WARNING" || warned.TPPMessages[0].Path != "X-Request-ID" || !strings.Contains(warned.TPPMessages[0].Text, "export-twice") {
		t.Errorf("tppMessages of the second answer: %+v", warned.TPPMessages)
	}
}

// TestScenarioExport_TemporaryFileFails answers an export whose temporary
// file cannot be made with the bank's signed 500, not with a cut or an
// unsigned answer.
func TestScenarioExport_TemporaryFileFails(t *testing.T) {
	b := apptest.Start(t, apptest.Options{DataPath: apptest.BigFixture(t, 5_000)})
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	if e := r.Err(t); r.Status != 500 || e.Code != "SYSTEM_ERROR" || !strings.Contains(e.Message, "quote error id") {
		t.Fatalf("export without a temporary file: %d %.300s", r.Status, r.Body)
	}
	var body map[string]json.RawMessage
	r.JSON(t, &body)
	if _, ok := body["accounts"]; ok {
		t.Error("the error answer holds part of the export")
	}
}
