import Lake
open Lake DSL

package specguard where
  srcDir := "lean"

@[default_target]
lean_lib SpecGuard where
  srcDir := "lean"
