package content

import (
	"strconv"
	"strings"
)

// ldProduct is what a JSON-LD Product says about the offer of a page.
type ldProduct struct {
	name, description, brand, sku, price, currency, availability string
}

// addTypes records the @type values of one JSON-LD object.
func (r *jsonLD) addTypes(v any) {
	switch t := v.(type) {
	case string:
		if len(r.types) < 32 {
			r.types = append(r.types, t)
		}
	case []any:
		for _, e := range t {
			r.addTypes(e)
		}
	}
}

func ldProductOf(t map[string]any) *ldProduct {
	p := &ldProduct{
		name:        clean(ldString(t["name"])),
		description: clean(ldString(t["description"])),
		brand:       clean(ldName(t["brand"])),
		sku:         clean(ldScalar(t["sku"])),
	}
	offers := t["offers"]
	if l, ok := offers.([]any); ok && len(l) > 0 {
		offers = l[0]
	}
	if o, ok := offers.(map[string]any); ok {
		p.price = clean(first(ldScalar(o["price"]), ldScalar(o["lowPrice"])))
		p.currency = clean(ldString(o["priceCurrency"]))
		if a := ldString(o["availability"]); a != "" {
			a = a[strings.LastIndexByte(a, '/')+1:]
			p.availability = clean(a)
		}
		if p.price == "" {
			if ps, ok := o["priceSpecification"].(map[string]any); ok {
				p.price = clean(ldScalar(ps["price"]))
				p.currency = clean(first(p.currency, ldString(ps["priceCurrency"])))
			}
		}
	}
	if p.name == "" && p.description == "" && p.price == "" {
		return nil
	}
	return p
}

// ldScalar reads a string or a number.
func ldScalar(v any) string {
	switch t := v.(type) {
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case []any:
		if len(t) > 0 {
			return ldScalar(t[0])
		}
	}
	return ldString(v)
}
