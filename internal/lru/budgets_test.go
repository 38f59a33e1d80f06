package lru_test

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/lru"
)

// notFixed are the lru.New calls whose budget is not a constant, with why.
var notFixed = map[string]string{
	"store/store.go: opts.CacheBytes":          "the content cache: --cache-bytes",
	"internal/artifact/artifact.go: memBudget": "Options.MemBudget, by default ArtifactBodies",
	"mcpserver/jsonenc.go: budget":             "newEscapeMemo's budget: the server passes Escapes",
	"auth/cache.go: int64(okSize)":             "a count of tokens, not bytes",
	"auth/cache.go: int64(badSize)":            "a count of tokens, not bytes",
}

// TestEveryFixedBudgetIsInTheTable: each lru.New in the module's code is
// given a budget of the table (lru.Name, or a constant defined as one),
// or is one of notFixed; each budget of the table is used.
func TestEveryFixedBudgetIsInTheTable(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal("not at the module's root:", err)
	}
	inTable := map[string]bool{}
	for _, b := range lru.Budgets() {
		inTable[b.Name] = true
	}
	used, exempted := map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{} // by folder
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		pkgs[filepath.Dir(p)] = append(pkgs[filepath.Dir(p)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for dir, files := range pkgs {
		if dir == filepath.Join(root, "internal", "lru") {
			continue
		}
		consts := map[string]string{} // a constant defined as lru.Name: Name
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if vs, ok := n.(*ast.ValueSpec); ok {
					for i, v := range vs.Values {
						if name, ok := lruName(v); ok && i < len(vs.Names) {
							consts[vs.Names[i].Name] = name
						}
					}
				}
				if name, ok := lruName(n); ok {
					used[name] = true
				}
				return true
			})
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !isLRUNew(call.Fun) || len(call.Args) != 1 {
					return true
				}
				calls++
				arg := call.Args[0]
				name, ok := lruName(arg)
				if id, isID := arg.(*ast.Ident); !ok && isID {
					name, ok = consts[id.Name]
				}
				pos := fset.Position(call.Pos())
				rel, _ := filepath.Rel(root, pos.Filename)
				key := filepath.ToSlash(rel) + ": " + exprText(fset, arg)
				switch {
				case ok && inTable[name]:
				case !ok && notFixed[key] != "":
					exempted[key] = true
				default:
					t.Errorf("%s:%d: lru.New's budget %s is not a fixed budget of internal/lru's table (Budgets): add it there", rel, pos.Line, exprText(fset, arg))
				}
				return true
			})
		}
	}
	if calls < len(inTable) {
		t.Fatalf("found %d lru.New calls, fewer than the table's %d budgets: the walk missed the code", calls, len(inTable))
	}
	for name := range inTable {
		if !used[name] {
			t.Errorf("lru.%s is in the table but no cache uses it", name)
		}
	}
	for key := range notFixed {
		if !exempted[key] {
			t.Errorf("notFixed lists %q, which no lru.New is given any more", key)
		}
	}
}

// TestTableNamesItsConstants: each entry of the table is named after the
// constant that gives its bytes, and Fixed is their sum.
func TestTableNamesItsConstants(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "budgets.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || len(lit.Elts) != 3 {
			return true
		}
		name, ok1 := lit.Elts[0].(*ast.BasicLit)
		bytes, ok2 := lit.Elts[2].(*ast.Ident)
		if ok1 && ok2 {
			entries++
			if want := `"` + bytes.Name + `"`; name.Value != want {
				t.Errorf("the entry named %s gives the bytes of %s", name.Value, bytes.Name)
			}
		}
		return true
	})
	var sum int64
	for _, b := range lru.Budgets() {
		sum += b.Bytes
	}
	if entries != len(lru.Budgets()) || sum != lru.Fixed() || sum == 0 {
		t.Errorf("%d entries checked of %d; sum %d, Fixed %d", entries, len(lru.Budgets()), sum, lru.Fixed())
	}
}

// lruName is Name for the expression lru.Name.
func lruName(n ast.Node) (string, bool) {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	if x, ok := sel.X.(*ast.Ident); ok && x.Name == "lru" && sel.Sel.Name != "New" && sel.Sel.Name != "Cache" {
		return sel.Sel.Name, true
	}
	return "", false
}

// isLRUNew reports lru.New[K, V].
func isLRUNew(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.IndexListExpr:
		fun = f.X
	case *ast.IndexExpr:
		fun = f.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "lru" && sel.Sel.Name == "New"
}

func exprText(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	if err := printer.Fprint(&b, fset, e); err != nil {
		return "?"
	}
	return b.String()
}
