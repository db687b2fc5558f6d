/*
Package storage keeps the bank's data in one bbolt file and implements
bank.Store.

# Bucket layout (schema version 2)

One bbolt file holds everything. Keys are chosen so that the queries the
bank makes are cursor seeks. "seq" is the 8-byte big-endian sequence number
carried inside a resource id (see bank.FormatID): ids are opaque to clients
but decode, without an index, to the key of their record.

Values come in three forms:

  - Records are the encoding/json form of their bank type (bank.Customer,
    bank.Payment, ...): the JSON tags of those types are the file format.
    Fields tagged json:"-" are kept elsewhere (Payment.Request under
    <seq>r in payments) or in the key (ids).
  - An account's transactions, booked and pending, use the binary codec of
    codec.go instead, since they count in the millions: a version byte
    (txCodecVersion, now 1), the amount as decimal text, the currency, the
    booking and value dates as YYYYMMDD uvarints, then sixteen strings in a
    fixed order (remittance information, creditor, debtor, codes, agents);
    each string is a uvarint byte length and its UTF-8 bytes. The id is in
    the key, booked or pending is the sub-bucket. Fields added later go at
    the end: a transaction that has remittance lines, structured references
    or currency exchanges adds the three lists, each a uvarint count and its
    items' strings (an exchange's quotation date as a YYYYMMDD uvarint); one
    without them ends after the sixteen strings, as before. Card
    transactions are JSON.
  - Index entries, counters and the schema record are fixed-size big-endian
    numbers, 4-byte statuses, or empty.

The golden files under testdata/schema pin the stored form of every record
type: TestSchema_RecordsRoundTrip fills each type's every field, stores it,
reads it back and compares the bytes written with the golden file. Renaming
a JSON tag or changing the codec fails it; a change on purpose needs a
migration (a new schema version) and "go test ./storage -run Schema
-update" to rewrite the files. Two settings are not covered there: pki and
batchState hold the JSON of types private to packages app and bank.

	meta
	  schema                      -> uint64 schema version
	  seq<kind byte>              -> uint64 last sequence handed out per kind (never reset)
	settings
	  settings                    -> bank.Settings (trust mode, requireSignature, ...)
	  pki                         -> CA, bank and server certificates and keys (PEM)
	tppContacts
	  <tppId>                     -> bank.TPPContact

	customers          <seq>                  -> bank.Customer
	customersByNumber  <customerNumber>       -> <seq>
	agreements         <seq>                  -> bank.Agreement (corporate only; a private
	                                             customer's agreement is derived, not stored)
	agreementsByOwner  <owner seq><seq>       -> (empty)
	engagements        <agreement seq><seq>   -> bank.Engagement
	engagementsByCustomer <customer seq><agreement seq><seq> -> (empty)
	engagementsByAccount  <account seq><agreement seq><seq>  -> (empty)
	accounts           <seq>                  -> bank.Account
	accountsByIban     <iban>                 -> <seq>
	accountsByBban     <bban>                 -> <seq>
	accountsByOwner    <owner seq><seq>       -> (empty)
	cardAccounts       <seq>                  -> bank.CardAccount
	cardAccountsByOwner <owner seq><seq>      -> (empty)

	transactions/<account seq>/               one sub-bucket per account; values in the binary codec
	  b   <booking date YYYYMMDD, 4 bytes><tx seq>  -> bank.Transaction (booked)
	  p   <tx seq>                                  -> bank.Transaction (pending)
	  s   <tx seq>                                  -> <booking date>, or 0000 for a
	                                                   pending one: lookup by id
	  d   <booking date>                            -> uint32 count      paging by offset
	cardTransactions/<card account seq>/      values JSON
	  b   <booking date><seq>   -> bank.CardTransaction (booked)
	  p   <seq>                 -> bank.CardTransaction (pending)
	  d   <booking date>        -> uint32 count
	  i   <cardTransactionId>   -> <seq>                 uniqueness per card account

Consents and SCA (values JSON):

	authorisations  <seq>                                    -> bank.Authorisation
	                                                            (kept 7 days, pruned oldest first)
	consents        <seq>                                    -> bank.Consent (kept 187 days, pruned oldest first)
	grants          <tppId>\x00<customer seq>\x00<context>   -> bank.Grant (one per TPP, PSU, context)
	sessions        <tppId>\x00<customer seq>                -> bank.Session (one per TPP and PSU)
	psus            <PSU-ID or PSU-Corporate-ID>             -> bank.PSU
	usage           <day YYYYMMDD, 4 bytes><key>             -> uint32 count of PSU-not-present
	                                                            calls; earlier days are dropped

Payments (values JSON, except the status index):

	payments           <seq>                   -> bank.Payment (status, items, history; no request)
	                   <seq>r                  -> bank.PaymentRequest, as the TPP sent it (written once)
	paymentsByStatus   <status, 4 bytes><seq>  -> (empty): a batch run's due payments in creation order;
	                                              a status change deletes the old entry, found by
	                                              trying each status (a seek each)
	paymentDuplicates  <32-hex logical key><created, 8 bytes><seq> -> (empty); entries older
	                                              than 24 hours are dropped as the key is used
	baskets            <seq>                   -> bank.Basket
	batchRuns          <seq>                   -> bank.BatchRun (the newest 500 are kept)
	settings/batchState                        -> the last scheduled batch run

A page of an account's transactions, newest first, is: walk the day counts
of the date range backwards to find the day on which the page starts (one
step per day, not per transaction), seek to that day in b, and read the
page. A million transactions on one account page in milliseconds, at any
offset.

Every index entry is written in the same transaction as its record; a
service call is one transaction, so a failed call leaves nothing behind.
Deleting an account or card account drops its transaction sub-bucket.

A payment's request body sits beside it in the payments bucket, so that
creating a payment writes one bucket's pages for both. Schema version 1
kept the request bodies in a bucket of their own (paymentRequests, keyed
<seq>) and each payment's status in another (paymentStatus), which cost
five more page writes per payment created. Writable brings a version 1
file to version 2 in one transaction (migrate): the request bodies move,
both buckets go, the schema record says 2. Until then, PaymentRequest
reads a version 1 file's bucket. A Sandbank of version 1 refuses a
version 2 file as made by a newer Sandbank.

# Writes

The bank writes through Batch. A write on an idle file runs at once, in
its own transaction, as with Update. Writes that come while a commit is
being synced queue, and the next transaction runs them all, in order, with
one commit: at 32 concurrent clients creating payments, a commit serves
about 16 of them, and a payment costs about 2 page writes where one
written alone costs about 16 (see BenchmarkPaymentWrites and
docs/BENCHMARKS.md). A call returns only after
its transaction's commit was synced. When one write of a group fails, the
transaction is rolled back and the others run again without it: so a write
function may run more than once and must change nothing outside its
transaction (see Batch). Update runs a function alone, once.

# Rebuild

A scenario import replaces every sandbox record, up to millions of
transactions, and must be all or nothing without one transaction holding
them all. Rebuild writes the new data into a new file beside the data
file, <data file>.importing, in as many transactions as the caller wants
(bank.Staging; the import commits every few thousand records), without an
fsync until the end. The new file starts with a copy of the buckets Reset
keeps (meta with its sequence counters, settings with the certificates and
keys, tppContacts) and empty sandbox buckets. Reads go on from the old file
meanwhile. When the caller is done, the new file is synced, both files are
closed (Windows renames no open file), the new one is renamed over the
data file and the data file is opened again, within the same DB value:
writes wait for the swap (DB.writing), reads under way finish on the old
file (bbolt's Close waits for them), and reads that begin while the file
is closed wait for it to open again (DB.reopening). The data file is one file
before and after. When the caller fails, the new file is removed and the
data file was never touched; when the live file was written to meanwhile
(the bank refuses writes while an import runs, so only a write that began
before it), the rebuild fails with ErrWrittenMeanwhile rather than lose
that write. A process killed halfway leaves the data file whole and the
new file behind: Writable removes it at the next start, once it holds the
data file's lock.

# Opening a file

A damaged file is never made worse. OpenReadOnly opens an existing file
read-only, under bbolt's shared lock (a Sandbank that holds the file
keeps others out as before: ErrInUse), and refuses, with an error
wrapping ErrDamaged that names the file and says what to do:

  - an empty file: a new data file is one that does not exist;
  - a file shorter than its pages (cut short): found from the meta page
    and the file's size, before any other page is read;
  - a file whose pages fail the structure check: a walk of every bucket
    and key in order (at least checkAlways keys, then bounded by
    checkBudget), then, when the walk ended within it, bbolt's full check. bbolt's panics and faults on a bad
    page become the error.

The caller reads what it needs (package app: the settings and the
certificates) and then calls Writable, which reopens the file for writing
and fails with ErrInUse if another program wrote to it in between. Open
does both. Schema record and buckets are written only when missing.
After the start, a transaction that meets a damaged page returns
ErrDamaged instead of panicking, and every later write is refused.
*/
package storage
