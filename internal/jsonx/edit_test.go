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

func TestAddMembersToEveryObjectButFreeForm(t *testing.T) {
	t.Parallel()
	doc := `{"id":"t","metadata":{"a":{"b":1}},"items":[{"x":1,"new":0},[{}]],"s":"{}"}` + "\n"
	got, err := AddMembers([]byte(doc), []byte(`{"new":{"n":[1]},"z":null}`), func(name string) bool { return name == "metadata" })
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"t","metadata":{"a":{"b":1}},"items":[{"x":1,"new":0,"z":null},[{"new":{"n":[1]},"z":null}]],"s":"{}","new":{"n":[1]},"z":null}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got, err = AddMembers([]byte(`[1,"a"]`), []byte(`{"new":1}`), func(string) bool { return false })
	if err != nil || string(got) != `[1,"a"]` {
		t.Errorf("no object: %s, %v", got, err)
	}
	if _, err := AddMembers([]byte(`{"a":`), []byte(`{"new":1}`), func(string) bool { return false }); err == nil {
		t.Error("invalid JSON: no error")
	}
}
