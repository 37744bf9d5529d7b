package jsonx

import "testing"

func TestSetAndDeleteKeepTheRestAsSent(t *testing.T) {
	t.Parallel()
	doc := `{"b": 1, "a":{"x":[1, 2]},"b":2, "s":"~/"}`
	for _, c := range []struct {
		ptr, val string
		del      bool
		want     string
	}{
		{"/a/x/1", `"two"`, false, `{"b":1,"a":{"x":[1,"two"]},"b":2,"s":"~/"}`},
		{"/a/x/-", `3`, false, `{"b":1,"a":{"x":[1,2,3]},"b":2,"s":"~/"}`},
		{"/b", `{"k":null}`, false, `{"b":1,"a":{"x":[1, 2]},"b":{"k":null},"s":"~/"}`},
		{"/new/deep/er", `true`, false, `{"b":1,"a":{"x":[1, 2]},"b":2,"s":"~/","new":{"deep":{"er":true}}}`},
		{"/a~1b~0", `1`, false, `{"b":1,"a":{"x":[1, 2]},"b":2,"s":"~/","a/b~":1}`},
		{"", `[]`, false, `[]`},
		{"/a/x/0", ``, true, `{"b":1,"a":{"x":[2]},"b":2,"s":"~/"}`},
		{"/s", ``, true, `{"b":1,"a":{"x":[1, 2]},"b":2}`},
		{"/missing/x", ``, true, doc},
		{"/a/x/9", ``, true, doc},
	} {
		toks, err := Pointer(c.ptr)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		if c.del {
			got, err = Delete([]byte(doc), toks)
		} else {
			got, err = Set([]byte(doc), toks, []byte(c.val))
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%q %q: got %s, %v; want %s", c.ptr, c.val, got, err, c.want)
		}
	}
	for _, c := range []struct{ doc, ptr, val string }{
		{doc, "/s/x", `1`},    // into a string
		{doc, "/a/x/5", `1`},  // past the end
		{doc, "/a/x/01", `1`}, // not an index
		{doc, "/b", `{`},      // the value is not JSON
		{`{"a":`, "/a", `1`},  // the body is not JSON
		{doc, "a", `1`},       // not a pointer
		{doc, "/a~2", `1`},    // bad escape
	} {
		toks, err := Pointer(c.ptr)
		if err == nil {
			_, err = Set([]byte(c.doc), toks, []byte(c.val))
		}
		if err == nil {
			t.Errorf("%s %q %q: no error", c.doc, c.ptr, c.val)
		}
	}
	if _, err := Delete([]byte(doc), nil); err == nil {
		t.Error("deleting the document: no error")
	}
}
