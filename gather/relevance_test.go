package gather

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/query"
)

// shopRepo is a small online shop with plausible code, for the relevance
// smoke test: each request below names no file, and its answer is known.
var shopRepo = map[string]string{
	"go.mod":    "module github.com/acme/shop\n\ngo 1.22\n\nrequire golang.org/x/crypto v0.21.0\n",
	"README.md": "# Shop\n\nAn online shop: catalog, cart, checkout, payments and shipping.\n\nRun `go run ./cmd/server`.\n",
	"cmd/server/main.go": `package main

import (
	"log"
	"net/http"

	"github.com/acme/shop/internal/auth"
	"github.com/acme/shop/internal/cart"
)

// main wires the HTTP routes and starts the server.
func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("/login", auth.LoginHandler)
	mux.HandleFunc("/cart", cart.Handler)
	log.Fatal(http.ListenAndServe(":8080", mux))
}
`,
	"internal/auth/session.go": `package auth

import (
	"net/http"
	"time"
)

// sessionLifetime is how long a session cookie stays valid.
const sessionLifetime = 30 * time.Minute

// Session is a signed-in user's session.
type Session struct {
	ID      string
	UserID  int64
	Expires time.Time
}

// NewSession starts a session and sets its cookie.
func NewSession(w http.ResponseWriter, userID int64) *Session {
	s := &Session{ID: randomID(), UserID: userID, Expires: time.Now().Add(sessionLifetime)}
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: s.ID, Expires: s.Expires, HttpOnly: true})
	return s
}

// Expired reports whether the session must be renewed.
func (s *Session) Expired(now time.Time) bool { return now.After(s.Expires) }
`,
	"internal/auth/password.go": `package auth

import "golang.org/x/crypto/bcrypt"

// bcryptCost is the work factor of stored password hashes.
const bcryptCost = 10

// HashPassword returns the bcrypt hash of a user's password.
func HashPassword(pw string) ([]byte, error) {
	return bcrypt.GenerateFromPassword([]byte(pw), bcryptCost)
}

// VerifyPassword compares a password with its stored hash.
func VerifyPassword(hash []byte, pw string) bool {
	return bcrypt.CompareHashAndPassword(hash, []byte(pw)) == nil
}
`,
	"internal/auth/ratelimit.go": `package auth

import (
	"sync"
	"time"
)

// LoginLimiter counts failed sign-in attempts per account and locks the
// account out after too many within a window.
type LoginLimiter struct {
	mu       sync.Mutex
	failures map[string][]time.Time
	Max      int
	Window   time.Duration
	Lockout  time.Duration
}

// Fail records a failed attempt for the account.
func (l *LoginLimiter) Fail(account string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures[account] = append(l.failures[account], now)
}

// Locked reports whether the account is locked out.
func (l *LoginLimiter) Locked(account string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, t := range l.failures[account] {
		if now.Sub(t) < l.Window {
			n++
		}
	}
	return n >= l.Max
}
`,
	"internal/auth/handler.go": `package auth

import "net/http"

// LoginHandler signs a user in.
func LoginHandler(w http.ResponseWriter, r *http.Request) {
	user := r.FormValue("user")
	if user == "" {
		http.Error(w, "missing user", http.StatusBadRequest)
		return
	}
	NewSession(w, 1)
}

func randomID() string { return "x" }
`,
	"internal/cart/cart.go": `package cart

import "net/http"

// Item is a line of the cart.
type Item struct {
	SKU      string
	Quantity int
	Price    int64 // cents
}

// Cart holds the items a customer is about to buy.
type Cart struct {
	Items  []Item
	Coupon *Coupon
}

// AddItem adds a quantity of a product.
func (c *Cart) AddItem(sku string, qty int, price int64) {
	c.Items = append(c.Items, Item{SKU: sku, Quantity: qty, Price: price})
}

// Subtotal sums the items before discounts.
func (c *Cart) Subtotal() int64 {
	var sum int64
	for _, it := range c.Items {
		sum += int64(it.Quantity) * it.Price
	}
	return sum
}

// Handler serves the cart page.
func Handler(w http.ResponseWriter, r *http.Request) {}
`,
	"internal/cart/cart_test.go": `package cart

import "testing"

func TestSubtotal(t *testing.T) {
	var c Cart
	c.AddItem("a", 2, 100)
	if got := c.Subtotal(); got != 200 {
		t.Fatalf("Subtotal = %d", got)
	}
}
`,
	"internal/cart/discount.go": `package cart

// Coupon is a promotion code.
type Coupon struct {
	Code    string
	Percent int // percentage off the subtotal
}

// ApplyCoupon returns the total after the coupon's percentage discount.
func ApplyCoupon(subtotal int64, c *Coupon) int64 {
	if c == nil {
		return subtotal
	}
	off := subtotal * int64(c.Percent) / 100
	return subtotal - off
}
`,
	"internal/payment/stripe.go": `package payment

import "errors"

// ErrDeclined is returned when the card issuer declines a charge.
var ErrDeclined = errors.New("card declined")

// Gateway talks to the card processor.
type Gateway struct{ APIKey string }

// ChargeCard charges an amount in cents to a card token.
func (g *Gateway) ChargeCard(token string, cents int64) (chargeID string, err error) {
	return "", ErrDeclined
}

// Refund returns a captured charge to the customer's card.
func (g *Gateway) Refund(chargeID string, cents int64) error {
	return nil
}
`,
	"internal/shipping/rates.go": `package shipping

// Zone groups destinations with the same carrier pricing.
type Zone int

const (
	Domestic Zone = iota
	Europe
	Remote
)

// Rate returns the shipping cost in cents of a parcel of the given weight
// in grams to a zone.
func Rate(weightGrams int, z Zone) int64 {
	base := int64(499)
	perKilo := int64(100)
	if z == Remote {
		perKilo = 350
	}
	return base + perKilo*int64(weightGrams/1000)
}
`,
	"internal/inventory/stock.go": `package inventory

import "sync"

// Warehouse tracks stock levels per SKU.
type Warehouse struct {
	mu       sync.Mutex
	levels   map[string]int
	reserved map[string]int
}

// Reserve holds units of a SKU for a pending order.
func (w *Warehouse) Reserve(sku string, n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.levels[sku]-w.reserved[sku] < n {
		return false
	}
	w.reserved[sku] += n
	return true
}

// Release gives reserved units back, when an order is cancelled.
func (w *Warehouse) Release(sku string, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reserved[sku] -= n
}
`,
	"internal/email/templates.go": `package email

import (
	"bytes"
	"text/template"
	"time"
)

var confirmation = template.Must(template.New("confirm").Parse(
	"Thank you for your order {{.Number}} placed on {{.Placed.Format \"2006-01-02\"}}.\n"))

// OrderConfirmation renders the message sent when an order is placed.
func OrderConfirmation(number string, placed time.Time) (string, error) {
	var b bytes.Buffer
	err := confirmation.Execute(&b, map[string]any{"Number": number, "Placed": placed})
	return b.String(), err
}
`,
	"internal/tax/vat.go": `package tax

// vatRates are value-added tax rates by ISO country code, in percent.
var vatRates = map[string]int{
	"DE": 16,
	"FR": 20,
	"NL": 21,
}

// VAT returns the value-added tax in cents for a net amount sold to a
// customer in country.
func VAT(country string, net int64) int64 {
	return net * int64(vatRates[country]) / 100
}
`,
	"internal/orders/export.go": `package orders

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Order is a placed order.
type Order struct {
	Number string
	Total  int64
}

// WriteCSV writes orders as comma-separated values, one row per order.
func WriteCSV(w io.Writer, os []Order) error {
	cw := csv.NewWriter(w)
	for _, o := range os {
		if err := cw.Write([]string{o.Number, strconv.FormatInt(o.Total, 10)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
`,
	"internal/search/index.go": `package search

import "strings"

// Index is a full-text index of product names.
type Index struct {
	postings map[string][]int
}

// normalize lowercases a word before it is indexed or looked up.
func normalize(word string) string {
	return strings.ToLower(word)
}

// Products returns the IDs of products whose names contain every word of
// the query.
func (ix *Index) Products(query string) []int {
	var ids []int
	for _, w := range strings.Fields(query) {
		ids = append(ids, ix.postings[normalize(w)]...)
	}
	return ids
}
`,
	"web/src/components/CheckoutForm.tsx": `import React, { useState } from "react";

// CheckoutForm collects the credit card number, expiry month and year, and
// the security code before payment.
export function CheckoutForm({ onPay }: { onPay: (card: Card) => void }) {
  const [card, setCard] = useState<Card>({ number: "", expMonth: 0, expYear: 0, cvc: "" });
  const submit = () => {
    if (card.number.length < 12) return;
    onPay(card);
  };
  return <form onSubmit={submit}>{/* fields */}</form>;
}

export interface Card { number: string; expMonth: number; expYear: number; cvc: string }
`,
	"web/src/components/ProductList.tsx": `import React from "react";

export function ProductList({ products }: { products: { id: number; name: string }[] }) {
  return <ul>{products.map((p) => <li key={p.id}>{p.name}</li>)}</ul>;
}
`,
	"scripts/migrate.py": `"""Apply database migrations in order and record the schema version."""
import sqlite3


def current_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return row[0] if row else 0


def migrate(conn: sqlite3.Connection, migrations: list[str]) -> None:
    for i, sql in enumerate(migrations[current_version(conn):]):
        conn.executescript(sql)
`,
	"docs/architecture.md": "# Architecture\n\nThe server routes requests to the cart, auth and payment packages. Orders are stored in SQLite.\n",
}

var relevanceTests = []struct {
	task    ctxd.TaskType
	request string
	answer  string
}{
	{ctxd.TaskDebug, "customers get locked out after too many failed sign in attempts", "internal/auth/ratelimit.go"},
	{ctxd.TaskImplement, "stored passwords should use a stronger hashing cost", "internal/auth/password.go"},
	{ctxd.TaskDebug, "percentage coupons give the wrong discount", "internal/cart/discount.go"},
	{ctxd.TaskImplement, "issue a refund automatically when the charge is declined", "internal/payment/stripe.go"},
	{ctxd.TaskDebug, "shipping cost is too low for heavy parcels going to remote zones", "internal/shipping/rates.go"},
	{ctxd.TaskDebug, "cancelled orders never release their reserved stock in the warehouse", "internal/inventory/stock.go"},
	{ctxd.TaskDebug, "the order confirmation message shows the date in the wrong format", "internal/email/templates.go"},
	{ctxd.TaskDebug, "German customers are charged the wrong value added tax rate", "internal/tax/vat.go"},
	{ctxd.TaskImplement, "the orders CSV export needs a header row", "internal/orders/export.go"},
	{ctxd.TaskImplement, "validate the credit card expiry month and year before paying", "web/src/components/CheckoutForm.tsx"},
	{ctxd.TaskImplement, "product search should ignore accents when normalizing words", "internal/search/index.go"},
	{ctxd.TaskImplement, "sessions expire too early; extend the cookie lifetime to a day", "internal/auth/session.go"},
	{ctxd.TaskImplement, "record the schema version after each database migration", "scripts/migrate.py"},
	{ctxd.TaskTest, "add tests for the cart subtotal with several items", "internal/cart/cart.go"},
}

// TestRelevanceSmoke: each request names no file; its answer file must be
// among the gathered candidates and in the top 3 of the lexical ranking.
// The ranks are recorded in testdata/relevance.golden.
func TestRelevanceSmoke(t *testing.T) {
	testutil.IsolateGit(t)
	w := workspaceOf(t, shopRepo)
	var report strings.Builder
	for _, tt := range relevanceTests {
		t.Run(tt.answer, func(t *testing.T) {
			res := gather(t, w, Request{Task: tt.task, Query: query.Parse(tt.request)})
			c := chunk(res, tt.answer)
			if c == nil {
				t.Fatalf("%q: %s not gathered; got %v", tt.request, tt.answer, sources(res))
			}
			if !slices.Contains(c.Facts.Reasons, reasonLexical) || c.Facts.Relevance <= 0 {
				t.Errorf("%s: facts %+v, want a lexical match with relevance", tt.answer, c.Facts)
			}
			hits, err := w.Rank(t.Context(), query.Parse(tt.request), 0)
			if err != nil {
				t.Fatal(err)
			}
			rank := slices.IndexFunc(hits, func(h tree.Hit) bool { return h.Path == tt.answer }) + 1
			if rank < 1 || rank > 3 {
				t.Errorf("%q: %s ranks %d, want top 3; top: %v", tt.request, tt.answer, rank, hits[:min(5, len(hits))])
			}
			var top []string
			for _, h := range hits[:min(3, len(hits))] {
				top = append(top, h.Path)
			}
			fmt.Fprintf(&report, "%s\n  answer %s: rank %d, relevance %.2f, priority %s\n  top: %s\n", tt.request, tt.answer, rank, c.Facts.Relevance, c.Priority, strings.Join(top, ", "))
		})
	}
	testutil.GoldenFile(t, "relevance", []byte(report.String()), *update)
}
