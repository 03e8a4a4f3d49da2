package primitive

import "testing"

func TestNormalizeURL(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"http://example.com", "http://example.com/"},
		{"HTTP://Example.COM/Path", "http://example.com/Path"},
		{"http://example.com./", "http://example.com/"},
		{"  https://example.com/a  ", "https://example.com/a"},
		{"http://example.com:80/a", "http://example.com/a"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"http://example.com:443/a", "http://example.com:443/a"},
		{"https://example.com:8443/a", "https://example.com:8443/a"},
		{"http://example.com/a#top", "http://example.com/a"},
		{"http://example.com/a#", "http://example.com/a"},
		{"http://example.com/a?", "http://example.com/a"},
		{"http://example.com/a?&&", "http://example.com/a"},
		{"http://example.com/docs/", "http://example.com/docs"},
		{"http://example.com/docs//", "http://example.com/docs"},
		{"http://example.com/", "http://example.com/"},
		{"http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"http://example.com/../../a", "http://example.com/a"},
		{"http://example.com/a/b/..", "http://example.com/a"},
		{"http://example.com/a/.", "http://example.com/a"},
		{"http://example.com/%7euser/%2e%2e/x", "http://example.com/x"},
		{"http://example.com/%7euser", "http://example.com/~user"},
		{"http://example.com/a%2fb", "http://example.com/a%2Fb"},
		{"http://example.com/a%20b", "http://example.com/a%20b"},
		{"http://example.com/a b", "http://example.com/a%20b"},
		{"http://example.com/caf%c3%a9", "http://example.com/caf%C3%A9"},
		{"http://example.com/?b=2&a=1", "http://example.com/?a=1&b=2"},
		{"http://example.com/?a=2&b=1&a=1", "http://example.com/?a=2&a=1&b=1"},
		{"http://example.com/?utm_source=x&id=3&UTM_Medium=y", "http://example.com/?id=3"},
		{"http://example.com/?gclid=1&fbclid=2&msclkid=3", "http://example.com/"},
		{"http://example.com/?q=%7e%2f", "http://example.com/?q=~%2F"},
		{"http://example.com/?q=a+b", "http://example.com/?q=a+b"},
		{"http://[::1]:80/", "http://[::1]/"},
		{"http://[::1]/a", "http://[::1]/a"},
		{"http://[::1]:8080/a/", "http://[::1]:8080/a"},
		{"http://Bücher.example/", "http://xn--bcher-kva.example/"},
		{"https://user:pw@example.com/", "https://user:pw@example.com/"},
	}
	for _, tt := range tests {
		got, err := NormalizeURL(tt.in)
		if err != nil {
			t.Errorf("NormalizeURL(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// The canonical form is a fixed point.
		if again, err := NormalizeURL(got); err != nil || again != got {
			t.Errorf("NormalizeURL(%q) = %q, %v; want it unchanged", got, again, err)
		}
	}
}

func TestNormalizeURLErrors(t *testing.T) {
	for _, in := range []string{
		"", "/relative/path", "example.com/a", "mailto:someone@example.com",
		"javascript:alert(1)", "ftp://example.com/file", "tel:+123", "http://", "http://%zz/",
	} {
		if got, err := NormalizeURL(in); err == nil {
			t.Errorf("NormalizeURL(%q) = %q, want an error", in, got)
		}
	}
}

func TestCleanURLKeepsSlashAndOrder(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"http://Example.com:80/docs/#x", "http://example.com/docs/"},
		{"http://example.com/?b=2&a=1&utm_source=x", "http://example.com/?b=2&a=1"},
		{"http://example.com", "http://example.com/"},
	}
	for _, tt := range tests {
		got, err := cleanURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("cleanURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
