package engine

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// allocationRepo is a shop whose order module is large (a hundred and
// fifty helpers around the function a refund request is about), beside a
// small refunds module the same request is about, and unrelated files.
func allocationRepo() map[string]string {
	orders := "\"\"\"Orders.\"\"\"\n\nimport datetime\n" + filler("python", 50) +
		"\n\ndef cancel_order(order, reason):\n    \"\"\"Cancel an order.\"\"\"\n    if order.shipped:\n        order.refund_payment(order.total)  # refundShippedMarker\n    order.status = 'cancelled'\n    order.reason = reason\n    return order\n" +
		strings.ReplaceAll(filler("python", 50), "_helper", "_mixer")
	refunds := "\"\"\"Refunds of payments.\"\"\"\n\n\nclass Refund:\n    \"\"\"A refund of a payment.\"\"\"\n\n    def __init__(self, payment, amount):\n        self.payment = payment\n        self.amount = amount\n\n    def apply(self):\n        if self.amount > self.payment.captured:\n            raise ValueError('refund above the captured payment')  # refundLimitMarker\n        self.payment.refunded += self.amount\n        return self.payment\n"
	return map[string]string{
		"shop/orders.py":   orders,
		"shop/refunds.py":  refunds,
		"shop/catalog.py":  "\"\"\"Catalog.\"\"\"\n" + strings.ReplaceAll(filler("python", 20), "_helper", "_item"),
		"shop/shipping.py": "\"\"\"Shipping.\"\"\"\n" + strings.ReplaceAll(filler("python", 20), "_helper", "_parcel"),
		"README.md":        "# shop\n\nOrders, refunds, a catalog and shipping.\n",
	}
}

// TestAllocationShowsTheCode: the allocator spends the budget on the code
// a request is about. The function whose body the request describes is
// shown whole inside its large file's collapsed view, and a small file the
// request is about is shown whole, not as an outline; the context stays
// within its budget at every size.
func TestAllocationShowsTheCode(t *testing.T) {
	files := allocationRepo()
	e := newEngine(t, testutil.GitRepo(t, files))
	const request = "refund the payment when a shipped order is cancelled"
	for _, budget := range []int{4000, 8000, 32000} {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if env.Context.TokensUsed > env.Context.Budget {
			t.Errorf("%d: over budget: %d of %d", budget, env.Context.TokensUsed, env.Context.Budget)
		}
		orders, order := targetChunk(t, &env.Context, "shop/orders.py")
		if orders == nil {
			t.Fatalf("%d: shop/orders.py not in the context; included %v", budget, order)
		}
		if n := markerLine(files["shop/orders.py"], "refundShippedMarker"); !visibleLine(orders, files["shop/orders.py"], n) {
			t.Errorf("%d: shop/orders.py at %q hides cancel_order's body (line %d); included %v", budget, orders.Truncation, n, order)
		}
		if budget < 32000 && !orders.Truncated {
			// The file is larger than the budget's context part: the
			// function is shown inside a reduced view of it.
			t.Errorf("%d: shop/orders.py whole (%d tokens) in a context of %d", budget, orders.Tokens, env.Context.Budget)
		}
		refunds, _ := targetChunk(t, &env.Context, "shop/refunds.py")
		if refunds == nil || refunds.Truncated {
			view := ctxd.View("absent")
			if refunds != nil {
				view = refunds.Truncation
			}
			t.Errorf("%d: shop/refunds.py at %q, want whole; included %v", budget, view, order)
		}
	}
}
