package main

import (
	"errors"
	"fmt"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// publicPackages type-checks every package a user can import from the
// repository at root: the packages of each module found under root (the
// main module and the nested ones such as otel/) that are not main, not
// under an internal/ directory and not made of test files only. It returns
// them sorted by import path.
func publicPackages(root string) ([]*types.Package, error) {
	mods, err := moduleDirs(root)
	if err != nil {
		return nil, err
	}
	var out []*types.Package
	for _, dir := range mods {
		pkgs, err := modulePackages(dir)
		if err != nil {
			rel, _ := filepath.Rel(root, dir)
			return nil, fmt.Errorf("module in %s/: %w", rel, err)
		}
		out = append(out, pkgs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path() < out[j].Path() })
	return out, nil
}

// moduleDirs finds the directories holding a go.mod under root, leaving
// out modules under an internal/ directory (internal/tools: nobody can
// import them), testdata, vendor and hidden directories.
func moduleDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || name == "internal" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "go.mod" {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !slices.Contains(dirs, root) {
		return nil, fmt.Errorf("no go.mod in %s", root)
	}
	sort.Strings(dirs)
	return dirs, nil
}

func loadConfig(dir string, mode packages.LoadMode) *packages.Config {
	return &packages.Config{
		Mode: mode,
		Dir:  dir,
		// A go.work above the repository must not choose the versions.
		Env: append(os.Environ(), "GOWORK=off"),
	}
}

// modulePackages lists the module's packages (go list, no build), keeps
// the public ones and type-checks only those, from export data.
func modulePackages(dir string) ([]*types.Package, error) {
	listed, err := packages.Load(loadConfig(dir, packages.NeedName|packages.NeedFiles), "./...")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range listed {
		if p.Name == "main" || len(p.GoFiles) == 0 || isInternal(p.PkgPath) {
			continue
		}
		paths = append(paths, p.PkgPath)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	typed, err := packages.Load(loadConfig(dir, packages.NeedName|packages.NeedFiles|packages.NeedTypes), paths...)
	if err != nil {
		return nil, err
	}
	var errs []error
	var out []*types.Package
	for _, p := range typed {
		for _, e := range p.Errors {
			errs = append(errs, fmt.Errorf("%s: %v", p.PkgPath, e))
		}
		if p.Types != nil {
			out = append(out, p.Types)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func isInternal(importPath string) bool {
	return slices.Contains(strings.Split(importPath, "/"), "internal")
}
