/-
SpecGuard.CoreTest — regression checks for SpecGuard.Core.

1. The kernel evaluates the 14 operations `Nat.add sub mul div mod pow gcd
   beq ble land lor xor shiftLeft shiftRight` on literals with GMP and never
   looks at their definitions.  `Ref.*` below are unaccelerated copies with
   bodies identical to Core's (only the names differ, so the kernel must
   unfold them).  Each `theorem` compares the GMP result with the copy's
   result; a definition in Core that differed from GMP would make one of
   them fail.
2. Python-style `Int.fdiv`/`Int.fmod` and the other `Int` operations against
   values computed by CPython.
3. String and character literals.
4. `#print axioms` on theorems that use Core: no axioms.

Everything is checked by `Eq.refl`, i.e. by evaluation in the kernel.
-/
prelude
import SpecGuard.Core

noncomputable section

-- Unary evaluation of values around 1000 needs deeper elaborator recursion.
set_option maxRecDepth 8192

/-! ## Unaccelerated copies of the Nat operations -/

namespace Ref

def pred (n : Nat) : Nat := Nat.rec (motive := fun _ => Nat) Nat.zero (fun k _ => k) n

def isZero (n : Nat) : Bool := Nat.rec (motive := fun _ => Bool) true (fun _ _ => false) n

def beq (n : Nat) : Nat → Bool :=
  Nat.rec (motive := fun _ => Nat → Bool)
    (fun m => Ref.isZero m)
    (fun _ ih m => Nat.rec (motive := fun _ => Bool) false (fun m' _ => ih m') m)
    n

def sub (n m : Nat) : Nat := Nat.rec (motive := fun _ => Nat) n (fun _ ih => Ref.pred ih) m

def add : Nat → Nat → Nat
  | n, .zero => n
  | n, .succ m => Nat.succ (Ref.add n m)

def mul : Nat → Nat → Nat
  | _, .zero => .zero
  | n, .succ m => Ref.add (Ref.mul n m) n

def pow : Nat → Nat → Nat
  | _, .zero => 1
  | n, .succ m => Ref.mul (Ref.pow n m) n

def ble : Nat → Nat → Bool
  | .zero, _ => true
  | .succ _, .zero => false
  | .succ n, .succ m => Ref.ble n m

def divGo : Nat → Nat → Nat → Nat
  | .zero, _, _ => .zero
  | .succ fuel, x, y => cond (Ref.ble y x) (Nat.succ (Ref.divGo fuel (Ref.sub x y) y)) .zero

def div (x y : Nat) : Nat := cond (Ref.isZero y) .zero (Ref.divGo x x y)

def modGo : Nat → Nat → Nat → Nat
  | .zero, x, _ => x
  | .succ fuel, x, y => cond (Ref.ble y x) (Ref.modGo fuel (Ref.sub x y) y) x

def mod (x y : Nat) : Nat := cond (Ref.isZero y) x (Ref.modGo x x y)

def gcdGo : Nat → Nat → Nat → Nat
  | .zero, _, y => y
  | .succ fuel, x, y => cond (Ref.isZero x) y (Ref.gcdGo fuel (Ref.mod y x) x)

def gcd (x y : Nat) : Nat := Ref.gcdGo (Nat.succ x) x y

def bitwiseGo (f : Bool → Bool → Bool) : Nat → Nat → Nat → Nat
  | .zero, _, _ => .zero
  | .succ fuel, x, y =>
    cond (Ref.isZero x) (cond (f false true) y .zero)
      (cond (Ref.isZero y) (cond (f true false) x .zero)
        (Ref.add (Ref.mul 2 (Ref.bitwiseGo f fuel (Ref.div x 2) (Ref.div y 2)))
          (cond (f (Ref.beq (Ref.mod x 2) 1) (Ref.beq (Ref.mod y 2) 1)) 1 0)))

def bitwise (f : Bool → Bool → Bool) (x y : Nat) : Nat :=
  cond (Ref.isZero x) (cond (f false true) y .zero)
    (cond (Ref.isZero y) (cond (f true false) x .zero)
      (Ref.bitwiseGo f (Ref.add x y) x y))

def land (x y : Nat) : Nat := Ref.bitwise Bool.and x y
def lor (x y : Nat) : Nat := Ref.bitwise Bool.or x y
def xor (x y : Nat) : Nat := Ref.bitwise Bool.xor x y

def shiftLeft : Nat → Nat → Nat
  | m, .zero => m
  | m, .succ n => Ref.shiftLeft (Ref.mul 2 m) n

def shiftRight : Nat → Nat → Nat
  | m, .zero => m
  | m, .succ n => Ref.div (Ref.shiftRight m n) 2

/-- Boolean equality, for comparing the Bool-valued operations. -/
def boolEq (a b : Bool) : Bool := cond a b (Bool.not b)

end Ref

/-! ## The copies really are Core's definitions

Definitional equality of the unapplied functions: the kernel unfolds both
sides (no literals, so no GMP) and compares the bodies.  This fails as soon
as a body in Core and its copy here drift apart.  (`smartUnfolding false`
lets the elaborator unfold the structural recursion too; with it on, the
elaborator refuses these equations before the kernel sees them.) -/

set_option smartUnfolding false in
theorem same_pred : Eq @Nat.pred @Ref.pred := Eq.refl _
set_option smartUnfolding false in
theorem same_isZero : Eq @Nat.isZero @Ref.isZero := Eq.refl _
set_option smartUnfolding false in
theorem same_beq : Eq @Nat.beq @Ref.beq := Eq.refl _
set_option smartUnfolding false in
theorem same_sub : Eq @Nat.sub @Ref.sub := Eq.refl _
set_option smartUnfolding false in
theorem same_add : Eq @Nat.add @Ref.add := Eq.refl _
set_option smartUnfolding false in
theorem same_mul : Eq @Nat.mul @Ref.mul := Eq.refl _
set_option smartUnfolding false in
theorem same_pow : Eq @Nat.pow @Ref.pow := Eq.refl _
set_option smartUnfolding false in
theorem same_ble : Eq @Nat.ble @Ref.ble := Eq.refl _
set_option smartUnfolding false in
theorem same_div : Eq @Nat.div @Ref.div := Eq.refl _
set_option smartUnfolding false in
theorem same_mod : Eq @Nat.mod @Ref.mod := Eq.refl _
set_option smartUnfolding false in
theorem same_gcd : Eq @Nat.gcd @Ref.gcd := Eq.refl _
set_option smartUnfolding false in
theorem same_land : Eq @Nat.land @Ref.land := Eq.refl _
set_option smartUnfolding false in
theorem same_lor : Eq @Nat.lor @Ref.lor := Eq.refl _
set_option smartUnfolding false in
theorem same_xor : Eq @Nat.xor @Ref.xor := Eq.refl _
set_option smartUnfolding false in
theorem same_shiftLeft : Eq @Nat.shiftLeft @Ref.shiftLeft := Eq.refl _
set_option smartUnfolding false in
theorem same_shiftRight : Eq @Nat.shiftRight @Ref.shiftRight := Eq.refl _

/-! ## The 14 accelerated operations agree with the unaccelerated copies

Each `X_k` checks `Nat.X a b` (GMP) against `Ref.X a b` (definition), and
`X_v_k` checks the value itself against CPython. -/

-- Nat.add
theorem add_0 : Eq (Nat.beq (Nat.add 0 0) (Ref.add 0 0)) true := Eq.refl true
theorem add_v_0 : Eq (Nat.add 0 0) 0 := Eq.refl 0
theorem add_1 : Eq (Nat.beq (Nat.add 0 5) (Ref.add 0 5)) true := Eq.refl true
theorem add_v_1 : Eq (Nat.add 0 5) 5 := Eq.refl 5
theorem add_2 : Eq (Nat.beq (Nat.add 5 0) (Ref.add 5 0)) true := Eq.refl true
theorem add_v_2 : Eq (Nat.add 5 0) 5 := Eq.refl 5
theorem add_3 : Eq (Nat.beq (Nat.add 3 4) (Ref.add 3 4)) true := Eq.refl true
theorem add_v_3 : Eq (Nat.add 3 4) 7 := Eq.refl 7
theorem add_4 : Eq (Nat.beq (Nat.add 17 25) (Ref.add 17 25)) true := Eq.refl true
theorem add_v_4 : Eq (Nat.add 17 25) 42 := Eq.refl 42
theorem add_5 : Eq (Nat.beq (Nat.add 99 1) (Ref.add 99 1)) true := Eq.refl true
theorem add_v_5 : Eq (Nat.add 99 1) 100 := Eq.refl 100

-- Nat.sub
theorem sub_0 : Eq (Nat.beq (Nat.sub 0 0) (Ref.sub 0 0)) true := Eq.refl true
theorem sub_v_0 : Eq (Nat.sub 0 0) 0 := Eq.refl 0
theorem sub_1 : Eq (Nat.beq (Nat.sub 0 5) (Ref.sub 0 5)) true := Eq.refl true
theorem sub_v_1 : Eq (Nat.sub 0 5) 0 := Eq.refl 0
theorem sub_2 : Eq (Nat.beq (Nat.sub 5 0) (Ref.sub 5 0)) true := Eq.refl true
theorem sub_v_2 : Eq (Nat.sub 5 0) 5 := Eq.refl 5
theorem sub_3 : Eq (Nat.beq (Nat.sub 3 4) (Ref.sub 3 4)) true := Eq.refl true
theorem sub_v_3 : Eq (Nat.sub 3 4) 0 := Eq.refl 0
theorem sub_4 : Eq (Nat.beq (Nat.sub 4 3) (Ref.sub 4 3)) true := Eq.refl true
theorem sub_v_4 : Eq (Nat.sub 4 3) 1 := Eq.refl 1
theorem sub_5 : Eq (Nat.beq (Nat.sub 10 10) (Ref.sub 10 10)) true := Eq.refl true
theorem sub_v_5 : Eq (Nat.sub 10 10) 0 := Eq.refl 0
theorem sub_6 : Eq (Nat.beq (Nat.sub 25 7) (Ref.sub 25 7)) true := Eq.refl true
theorem sub_v_6 : Eq (Nat.sub 25 7) 18 := Eq.refl 18

-- Nat.mul
theorem mul_0 : Eq (Nat.beq (Nat.mul 0 0) (Ref.mul 0 0)) true := Eq.refl true
theorem mul_v_0 : Eq (Nat.mul 0 0) 0 := Eq.refl 0
theorem mul_1 : Eq (Nat.beq (Nat.mul 0 7) (Ref.mul 0 7)) true := Eq.refl true
theorem mul_v_1 : Eq (Nat.mul 0 7) 0 := Eq.refl 0
theorem mul_2 : Eq (Nat.beq (Nat.mul 7 0) (Ref.mul 7 0)) true := Eq.refl true
theorem mul_v_2 : Eq (Nat.mul 7 0) 0 := Eq.refl 0
theorem mul_3 : Eq (Nat.beq (Nat.mul 1 9) (Ref.mul 1 9)) true := Eq.refl true
theorem mul_v_3 : Eq (Nat.mul 1 9) 9 := Eq.refl 9
theorem mul_4 : Eq (Nat.beq (Nat.mul 6 7) (Ref.mul 6 7)) true := Eq.refl true
theorem mul_v_4 : Eq (Nat.mul 6 7) 42 := Eq.refl 42
theorem mul_5 : Eq (Nat.beq (Nat.mul 12 12) (Ref.mul 12 12)) true := Eq.refl true
theorem mul_v_5 : Eq (Nat.mul 12 12) 144 := Eq.refl 144

-- Nat.div
theorem div_0 : Eq (Nat.beq (Nat.div 0 0) (Ref.div 0 0)) true := Eq.refl true
theorem div_v_0 : Eq (Nat.div 0 0) 0 := Eq.refl 0
theorem div_1 : Eq (Nat.beq (Nat.div 7 0) (Ref.div 7 0)) true := Eq.refl true
theorem div_v_1 : Eq (Nat.div 7 0) 0 := Eq.refl 0
theorem div_2 : Eq (Nat.beq (Nat.div 0 3) (Ref.div 0 3)) true := Eq.refl true
theorem div_v_2 : Eq (Nat.div 0 3) 0 := Eq.refl 0
theorem div_3 : Eq (Nat.beq (Nat.div 7 2) (Ref.div 7 2)) true := Eq.refl true
theorem div_v_3 : Eq (Nat.div 7 2) 3 := Eq.refl 3
theorem div_4 : Eq (Nat.beq (Nat.div 6 3) (Ref.div 6 3)) true := Eq.refl true
theorem div_v_4 : Eq (Nat.div 6 3) 2 := Eq.refl 2
theorem div_5 : Eq (Nat.beq (Nat.div 2 7) (Ref.div 2 7)) true := Eq.refl true
theorem div_v_5 : Eq (Nat.div 2 7) 0 := Eq.refl 0
theorem div_6 : Eq (Nat.beq (Nat.div 100 7) (Ref.div 100 7)) true := Eq.refl true
theorem div_v_6 : Eq (Nat.div 100 7) 14 := Eq.refl 14
theorem div_7 : Eq (Nat.beq (Nat.div 13 13) (Ref.div 13 13)) true := Eq.refl true
theorem div_v_7 : Eq (Nat.div 13 13) 1 := Eq.refl 1
theorem div_8 : Eq (Nat.beq (Nat.div 13 1) (Ref.div 13 1)) true := Eq.refl true
theorem div_v_8 : Eq (Nat.div 13 1) 13 := Eq.refl 13

-- Nat.mod
theorem mod_0 : Eq (Nat.beq (Nat.mod 0 0) (Ref.mod 0 0)) true := Eq.refl true
theorem mod_v_0 : Eq (Nat.mod 0 0) 0 := Eq.refl 0
theorem mod_1 : Eq (Nat.beq (Nat.mod 7 0) (Ref.mod 7 0)) true := Eq.refl true
theorem mod_v_1 : Eq (Nat.mod 7 0) 7 := Eq.refl 7
theorem mod_2 : Eq (Nat.beq (Nat.mod 0 3) (Ref.mod 0 3)) true := Eq.refl true
theorem mod_v_2 : Eq (Nat.mod 0 3) 0 := Eq.refl 0
theorem mod_3 : Eq (Nat.beq (Nat.mod 7 2) (Ref.mod 7 2)) true := Eq.refl true
theorem mod_v_3 : Eq (Nat.mod 7 2) 1 := Eq.refl 1
theorem mod_4 : Eq (Nat.beq (Nat.mod 6 3) (Ref.mod 6 3)) true := Eq.refl true
theorem mod_v_4 : Eq (Nat.mod 6 3) 0 := Eq.refl 0
theorem mod_5 : Eq (Nat.beq (Nat.mod 2 7) (Ref.mod 2 7)) true := Eq.refl true
theorem mod_v_5 : Eq (Nat.mod 2 7) 2 := Eq.refl 2
theorem mod_6 : Eq (Nat.beq (Nat.mod 100 7) (Ref.mod 100 7)) true := Eq.refl true
theorem mod_v_6 : Eq (Nat.mod 100 7) 2 := Eq.refl 2
theorem mod_7 : Eq (Nat.beq (Nat.mod 13 13) (Ref.mod 13 13)) true := Eq.refl true
theorem mod_v_7 : Eq (Nat.mod 13 13) 0 := Eq.refl 0
theorem mod_8 : Eq (Nat.beq (Nat.mod 13 1) (Ref.mod 13 1)) true := Eq.refl true
theorem mod_v_8 : Eq (Nat.mod 13 1) 0 := Eq.refl 0

-- Nat.pow
theorem pow_0 : Eq (Nat.beq (Nat.pow 0 0) (Ref.pow 0 0)) true := Eq.refl true
theorem pow_v_0 : Eq (Nat.pow 0 0) 1 := Eq.refl 1
theorem pow_1 : Eq (Nat.beq (Nat.pow 0 3) (Ref.pow 0 3)) true := Eq.refl true
theorem pow_v_1 : Eq (Nat.pow 0 3) 0 := Eq.refl 0
theorem pow_2 : Eq (Nat.beq (Nat.pow 3 0) (Ref.pow 3 0)) true := Eq.refl true
theorem pow_v_2 : Eq (Nat.pow 3 0) 1 := Eq.refl 1
theorem pow_3 : Eq (Nat.beq (Nat.pow 1 7) (Ref.pow 1 7)) true := Eq.refl true
theorem pow_v_3 : Eq (Nat.pow 1 7) 1 := Eq.refl 1
theorem pow_4 : Eq (Nat.beq (Nat.pow 2 10) (Ref.pow 2 10)) true := Eq.refl true
theorem pow_v_4 : Eq (Nat.pow 2 10) 1024 := Eq.refl 1024
theorem pow_5 : Eq (Nat.beq (Nat.pow 3 4) (Ref.pow 3 4)) true := Eq.refl true
theorem pow_v_5 : Eq (Nat.pow 3 4) 81 := Eq.refl 81
theorem pow_6 : Eq (Nat.beq (Nat.pow 7 2) (Ref.pow 7 2)) true := Eq.refl true
theorem pow_v_6 : Eq (Nat.pow 7 2) 49 := Eq.refl 49

-- Nat.gcd
theorem gcd_0 : Eq (Nat.beq (Nat.gcd 0 0) (Ref.gcd 0 0)) true := Eq.refl true
theorem gcd_v_0 : Eq (Nat.gcd 0 0) 0 := Eq.refl 0
theorem gcd_1 : Eq (Nat.beq (Nat.gcd 0 6) (Ref.gcd 0 6)) true := Eq.refl true
theorem gcd_v_1 : Eq (Nat.gcd 0 6) 6 := Eq.refl 6
theorem gcd_2 : Eq (Nat.beq (Nat.gcd 6 0) (Ref.gcd 6 0)) true := Eq.refl true
theorem gcd_v_2 : Eq (Nat.gcd 6 0) 6 := Eq.refl 6
theorem gcd_3 : Eq (Nat.beq (Nat.gcd 12 18) (Ref.gcd 12 18)) true := Eq.refl true
theorem gcd_v_3 : Eq (Nat.gcd 12 18) 6 := Eq.refl 6
theorem gcd_4 : Eq (Nat.beq (Nat.gcd 18 12) (Ref.gcd 18 12)) true := Eq.refl true
theorem gcd_v_4 : Eq (Nat.gcd 18 12) 6 := Eq.refl 6
theorem gcd_5 : Eq (Nat.beq (Nat.gcd 7 13) (Ref.gcd 7 13)) true := Eq.refl true
theorem gcd_v_5 : Eq (Nat.gcd 7 13) 1 := Eq.refl 1
theorem gcd_6 : Eq (Nat.beq (Nat.gcd 25 15) (Ref.gcd 25 15)) true := Eq.refl true
theorem gcd_v_6 : Eq (Nat.gcd 25 15) 5 := Eq.refl 5
theorem gcd_7 : Eq (Nat.beq (Nat.gcd 1 1) (Ref.gcd 1 1)) true := Eq.refl true
theorem gcd_v_7 : Eq (Nat.gcd 1 1) 1 := Eq.refl 1

-- Nat.beq
theorem beq_0 : Eq (Ref.boolEq (Nat.beq 0 0) (Ref.beq 0 0)) true := Eq.refl true
theorem beq_v_0 : Eq (Nat.beq 0 0) true := Eq.refl true
theorem beq_1 : Eq (Ref.boolEq (Nat.beq 0 1) (Ref.beq 0 1)) true := Eq.refl true
theorem beq_v_1 : Eq (Nat.beq 0 1) false := Eq.refl false
theorem beq_2 : Eq (Ref.boolEq (Nat.beq 1 0) (Ref.beq 1 0)) true := Eq.refl true
theorem beq_v_2 : Eq (Nat.beq 1 0) false := Eq.refl false
theorem beq_3 : Eq (Ref.boolEq (Nat.beq 5 5) (Ref.beq 5 5)) true := Eq.refl true
theorem beq_v_3 : Eq (Nat.beq 5 5) true := Eq.refl true
theorem beq_4 : Eq (Ref.boolEq (Nat.beq 5 6) (Ref.beq 5 6)) true := Eq.refl true
theorem beq_v_4 : Eq (Nat.beq 5 6) false := Eq.refl false
theorem beq_5 : Eq (Ref.boolEq (Nat.beq 40 39) (Ref.beq 40 39)) true := Eq.refl true
theorem beq_v_5 : Eq (Nat.beq 40 39) false := Eq.refl false

-- Nat.ble
theorem ble_0 : Eq (Ref.boolEq (Nat.ble 0 0) (Ref.ble 0 0)) true := Eq.refl true
theorem ble_v_0 : Eq (Nat.ble 0 0) true := Eq.refl true
theorem ble_1 : Eq (Ref.boolEq (Nat.ble 0 1) (Ref.ble 0 1)) true := Eq.refl true
theorem ble_v_1 : Eq (Nat.ble 0 1) true := Eq.refl true
theorem ble_2 : Eq (Ref.boolEq (Nat.ble 1 0) (Ref.ble 1 0)) true := Eq.refl true
theorem ble_v_2 : Eq (Nat.ble 1 0) false := Eq.refl false
theorem ble_3 : Eq (Ref.boolEq (Nat.ble 5 5) (Ref.ble 5 5)) true := Eq.refl true
theorem ble_v_3 : Eq (Nat.ble 5 5) true := Eq.refl true
theorem ble_4 : Eq (Ref.boolEq (Nat.ble 5 6) (Ref.ble 5 6)) true := Eq.refl true
theorem ble_v_4 : Eq (Nat.ble 5 6) true := Eq.refl true
theorem ble_5 : Eq (Ref.boolEq (Nat.ble 40 39) (Ref.ble 40 39)) true := Eq.refl true
theorem ble_v_5 : Eq (Nat.ble 40 39) false := Eq.refl false

-- Nat.land
theorem land_0 : Eq (Nat.beq (Nat.land 0 0) (Ref.land 0 0)) true := Eq.refl true
theorem land_v_0 : Eq (Nat.land 0 0) 0 := Eq.refl 0
theorem land_1 : Eq (Nat.beq (Nat.land 0 13) (Ref.land 0 13)) true := Eq.refl true
theorem land_v_1 : Eq (Nat.land 0 13) 0 := Eq.refl 0
theorem land_2 : Eq (Nat.beq (Nat.land 13 0) (Ref.land 13 0)) true := Eq.refl true
theorem land_v_2 : Eq (Nat.land 13 0) 0 := Eq.refl 0
theorem land_3 : Eq (Nat.beq (Nat.land 12 10) (Ref.land 12 10)) true := Eq.refl true
theorem land_v_3 : Eq (Nat.land 12 10) 8 := Eq.refl 8
theorem land_4 : Eq (Nat.beq (Nat.land 7 7) (Ref.land 7 7)) true := Eq.refl true
theorem land_v_4 : Eq (Nat.land 7 7) 7 := Eq.refl 7
theorem land_5 : Eq (Nat.beq (Nat.land 255 170) (Ref.land 255 170)) true := Eq.refl true
theorem land_v_5 : Eq (Nat.land 255 170) 170 := Eq.refl 170
theorem land_6 : Eq (Nat.beq (Nat.land 6 9) (Ref.land 6 9)) true := Eq.refl true
theorem land_v_6 : Eq (Nat.land 6 9) 0 := Eq.refl 0
theorem land_7 : Eq (Nat.beq (Nat.land 31 16) (Ref.land 31 16)) true := Eq.refl true
theorem land_v_7 : Eq (Nat.land 31 16) 16 := Eq.refl 16

-- Nat.lor
theorem lor_0 : Eq (Nat.beq (Nat.lor 0 0) (Ref.lor 0 0)) true := Eq.refl true
theorem lor_v_0 : Eq (Nat.lor 0 0) 0 := Eq.refl 0
theorem lor_1 : Eq (Nat.beq (Nat.lor 0 13) (Ref.lor 0 13)) true := Eq.refl true
theorem lor_v_1 : Eq (Nat.lor 0 13) 13 := Eq.refl 13
theorem lor_2 : Eq (Nat.beq (Nat.lor 13 0) (Ref.lor 13 0)) true := Eq.refl true
theorem lor_v_2 : Eq (Nat.lor 13 0) 13 := Eq.refl 13
theorem lor_3 : Eq (Nat.beq (Nat.lor 12 10) (Ref.lor 12 10)) true := Eq.refl true
theorem lor_v_3 : Eq (Nat.lor 12 10) 14 := Eq.refl 14
theorem lor_4 : Eq (Nat.beq (Nat.lor 7 7) (Ref.lor 7 7)) true := Eq.refl true
theorem lor_v_4 : Eq (Nat.lor 7 7) 7 := Eq.refl 7
theorem lor_5 : Eq (Nat.beq (Nat.lor 85 170) (Ref.lor 85 170)) true := Eq.refl true
theorem lor_v_5 : Eq (Nat.lor 85 170) 255 := Eq.refl 255
theorem lor_6 : Eq (Nat.beq (Nat.lor 6 9) (Ref.lor 6 9)) true := Eq.refl true
theorem lor_v_6 : Eq (Nat.lor 6 9) 15 := Eq.refl 15
theorem lor_7 : Eq (Nat.beq (Nat.lor 32 1) (Ref.lor 32 1)) true := Eq.refl true
theorem lor_v_7 : Eq (Nat.lor 32 1) 33 := Eq.refl 33

-- Nat.xor
theorem xor_0 : Eq (Nat.beq (Nat.xor 0 0) (Ref.xor 0 0)) true := Eq.refl true
theorem xor_v_0 : Eq (Nat.xor 0 0) 0 := Eq.refl 0
theorem xor_1 : Eq (Nat.beq (Nat.xor 0 13) (Ref.xor 0 13)) true := Eq.refl true
theorem xor_v_1 : Eq (Nat.xor 0 13) 13 := Eq.refl 13
theorem xor_2 : Eq (Nat.beq (Nat.xor 13 0) (Ref.xor 13 0)) true := Eq.refl true
theorem xor_v_2 : Eq (Nat.xor 13 0) 13 := Eq.refl 13
theorem xor_3 : Eq (Nat.beq (Nat.xor 12 10) (Ref.xor 12 10)) true := Eq.refl true
theorem xor_v_3 : Eq (Nat.xor 12 10) 6 := Eq.refl 6
theorem xor_4 : Eq (Nat.beq (Nat.xor 7 7) (Ref.xor 7 7)) true := Eq.refl true
theorem xor_v_4 : Eq (Nat.xor 7 7) 0 := Eq.refl 0
theorem xor_5 : Eq (Nat.beq (Nat.xor 255 170) (Ref.xor 255 170)) true := Eq.refl true
theorem xor_v_5 : Eq (Nat.xor 255 170) 85 := Eq.refl 85
theorem xor_6 : Eq (Nat.beq (Nat.xor 6 9) (Ref.xor 6 9)) true := Eq.refl true
theorem xor_v_6 : Eq (Nat.xor 6 9) 15 := Eq.refl 15
theorem xor_7 : Eq (Nat.beq (Nat.xor 31 16) (Ref.xor 31 16)) true := Eq.refl true
theorem xor_v_7 : Eq (Nat.xor 31 16) 15 := Eq.refl 15

-- Nat.shiftLeft
theorem shiftLeft_0 : Eq (Nat.beq (Nat.shiftLeft 0 0) (Ref.shiftLeft 0 0)) true := Eq.refl true
theorem shiftLeft_v_0 : Eq (Nat.shiftLeft 0 0) 0 := Eq.refl 0
theorem shiftLeft_1 : Eq (Nat.beq (Nat.shiftLeft 0 5) (Ref.shiftLeft 0 5)) true := Eq.refl true
theorem shiftLeft_v_1 : Eq (Nat.shiftLeft 0 5) 0 := Eq.refl 0
theorem shiftLeft_2 : Eq (Nat.beq (Nat.shiftLeft 5 0) (Ref.shiftLeft 5 0)) true := Eq.refl true
theorem shiftLeft_v_2 : Eq (Nat.shiftLeft 5 0) 5 := Eq.refl 5
theorem shiftLeft_3 : Eq (Nat.beq (Nat.shiftLeft 1 10) (Ref.shiftLeft 1 10)) true := Eq.refl true
theorem shiftLeft_v_3 : Eq (Nat.shiftLeft 1 10) 1024 := Eq.refl 1024
theorem shiftLeft_4 : Eq (Nat.beq (Nat.shiftLeft 3 4) (Ref.shiftLeft 3 4)) true := Eq.refl true
theorem shiftLeft_v_4 : Eq (Nat.shiftLeft 3 4) 48 := Eq.refl 48
theorem shiftLeft_5 : Eq (Nat.beq (Nat.shiftLeft 13 2) (Ref.shiftLeft 13 2)) true := Eq.refl true
theorem shiftLeft_v_5 : Eq (Nat.shiftLeft 13 2) 52 := Eq.refl 52

-- Nat.shiftRight
theorem shiftRight_0 : Eq (Nat.beq (Nat.shiftRight 0 0) (Ref.shiftRight 0 0)) true := Eq.refl true
theorem shiftRight_v_0 : Eq (Nat.shiftRight 0 0) 0 := Eq.refl 0
theorem shiftRight_1 : Eq (Nat.beq (Nat.shiftRight 0 5) (Ref.shiftRight 0 5)) true := Eq.refl true
theorem shiftRight_v_1 : Eq (Nat.shiftRight 0 5) 0 := Eq.refl 0
theorem shiftRight_2 : Eq (Nat.beq (Nat.shiftRight 5 0) (Ref.shiftRight 5 0)) true := Eq.refl true
theorem shiftRight_v_2 : Eq (Nat.shiftRight 5 0) 5 := Eq.refl 5
theorem shiftRight_3 : Eq (Nat.beq (Nat.shiftRight 1024 10) (Ref.shiftRight 1024 10)) true := Eq.refl true
theorem shiftRight_v_3 : Eq (Nat.shiftRight 1024 10) 1 := Eq.refl 1
theorem shiftRight_4 : Eq (Nat.beq (Nat.shiftRight 100 2) (Ref.shiftRight 100 2)) true := Eq.refl true
theorem shiftRight_v_4 : Eq (Nat.shiftRight 100 2) 25 := Eq.refl 25
theorem shiftRight_5 : Eq (Nat.beq (Nat.shiftRight 13 2) (Ref.shiftRight 13 2)) true := Eq.refl true
theorem shiftRight_v_5 : Eq (Nat.shiftRight 13 2) 3 := Eq.refl 3
theorem shiftRight_6 : Eq (Nat.beq (Nat.shiftRight 1 3) (Ref.shiftRight 1 3)) true := Eq.refl true
theorem shiftRight_v_6 : Eq (Nat.shiftRight 1 3) 0 := Eq.refl 0
theorem shiftRight_7 : Eq (Nat.beq (Nat.shiftRight 255 4) (Ref.shiftRight 255 4)) true := Eq.refl true
theorem shiftRight_v_7 : Eq (Nat.shiftRight 255 4) 15 := Eq.refl 15

/-! ## The definitions themselves (open terms, so no GMP) -/

theorem open_add (n : Nat) : Eq (Nat.add n 0) n := Eq.refl n
theorem open_add_succ (n m : Nat) : Eq (Nat.add n (Nat.succ m)) (Nat.succ (Nat.add n m)) := Eq.refl _
theorem open_sub (n : Nat) : Eq (Nat.sub n 0) n := Eq.refl n
theorem open_mul (n : Nat) : Eq (Nat.mul n 0) 0 := Eq.refl 0
theorem open_pow (n : Nat) : Eq (Nat.pow n 0) 1 := Eq.refl 1
theorem open_div (n : Nat) : Eq (Nat.div n 0) 0 := Eq.refl 0
theorem open_mod (n : Nat) : Eq (Nat.mod n 0) n := Eq.refl n
theorem open_gcd (n : Nat) : Eq (Nat.gcd 0 n) n := Eq.refl n
theorem open_ble (n : Nat) : Eq (Nat.ble 0 n) true := Eq.refl true
theorem open_beq (n : Nat) : Eq (Nat.beq (Nat.succ n) 0) false := Eq.refl false
theorem open_land (n : Nat) : Eq (Nat.land 0 n) 0 := Eq.refl 0
theorem open_lor (n : Nat) : Eq (Nat.lor 0 n) n := Eq.refl n
theorem open_xor (n : Nat) : Eq (Nat.xor 0 n) n := Eq.refl n
theorem open_shl (n : Nat) : Eq (Nat.shiftLeft n 0) n := Eq.refl n
theorem open_shr (n : Nat) : Eq (Nat.shiftRight n 0) n := Eq.refl n

/-! ## Big numbers go through GMP (unary evaluation would never finish) -/

theorem big_pow : Eq (Nat.beq (Nat.pow 2 256) (Nat.mul (Nat.pow 2 128) (Nat.pow 2 128))) true := Eq.refl true
theorem big_shift : Eq (Nat.beq (Nat.shiftLeft 1 200) (Nat.pow 2 200)) true := Eq.refl true
theorem big_div : Eq (Nat.div (Nat.pow 10 40) (Nat.pow 10 38)) 100 := Eq.refl 100

/-! ## Int: Python semantics

`Int.fdiv` is Python's `//`, `Int.fmod` is Python's `%` (values below were
computed by CPython).  Python raises on a zero divisor; Core defines
`fdiv a 0 = 0` and `fmod a 0 = a`. -/

theorem fdiv_0 : Eq (Int.beq (Int.fdiv (Int.negSucc 6) (Int.ofNat 2)) (Int.negSucc 3)) true := Eq.refl true  -- -7 // 2 == -4
theorem fmod_0 : Eq (Int.beq (Int.fmod (Int.negSucc 6) (Int.ofNat 2)) (Int.ofNat 1)) true := Eq.refl true  -- -7 % 2 == 1
theorem fdiv_1 : Eq (Int.beq (Int.fdiv (Int.negSucc 6) (Int.negSucc 1)) (Int.ofNat 3)) true := Eq.refl true  -- -7 // -2 == 3
theorem fmod_1 : Eq (Int.beq (Int.fmod (Int.negSucc 6) (Int.negSucc 1)) (Int.negSucc 0)) true := Eq.refl true  -- -7 % -2 == -1
theorem fdiv_2 : Eq (Int.beq (Int.fdiv (Int.negSucc 6) (Int.ofNat 3)) (Int.negSucc 2)) true := Eq.refl true  -- -7 // 3 == -3
theorem fmod_2 : Eq (Int.beq (Int.fmod (Int.negSucc 6) (Int.ofNat 3)) (Int.ofNat 2)) true := Eq.refl true  -- -7 % 3 == 2
theorem fdiv_3 : Eq (Int.beq (Int.fdiv (Int.negSucc 6) (Int.negSucc 2)) (Int.ofNat 2)) true := Eq.refl true  -- -7 // -3 == 2
theorem fmod_3 : Eq (Int.beq (Int.fmod (Int.negSucc 6) (Int.negSucc 2)) (Int.negSucc 0)) true := Eq.refl true  -- -7 % -3 == -1
theorem fdiv_4 : Eq (Int.beq (Int.fdiv (Int.negSucc 6) (Int.ofNat 1)) (Int.negSucc 6)) true := Eq.refl true  -- -7 // 1 == -7
theorem fmod_4 : Eq (Int.beq (Int.fmod (Int.negSucc 6) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- -7 % 1 == 0
theorem fdiv_5 : Eq (Int.beq (Int.fdiv (Int.negSucc 6) (Int.negSucc 0)) (Int.ofNat 7)) true := Eq.refl true  -- -7 // -1 == 7
theorem fmod_5 : Eq (Int.beq (Int.fmod (Int.negSucc 6) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- -7 % -1 == 0
theorem fdiv_6 : Eq (Int.beq (Int.fdiv (Int.negSucc 5) (Int.ofNat 2)) (Int.negSucc 2)) true := Eq.refl true  -- -6 // 2 == -3
theorem fmod_6 : Eq (Int.beq (Int.fmod (Int.negSucc 5) (Int.ofNat 2)) (Int.ofNat 0)) true := Eq.refl true  -- -6 % 2 == 0
theorem fdiv_7 : Eq (Int.beq (Int.fdiv (Int.negSucc 5) (Int.negSucc 1)) (Int.ofNat 3)) true := Eq.refl true  -- -6 // -2 == 3
theorem fmod_7 : Eq (Int.beq (Int.fmod (Int.negSucc 5) (Int.negSucc 1)) (Int.ofNat 0)) true := Eq.refl true  -- -6 % -2 == 0
theorem fdiv_8 : Eq (Int.beq (Int.fdiv (Int.negSucc 5) (Int.ofNat 3)) (Int.negSucc 1)) true := Eq.refl true  -- -6 // 3 == -2
theorem fmod_8 : Eq (Int.beq (Int.fmod (Int.negSucc 5) (Int.ofNat 3)) (Int.ofNat 0)) true := Eq.refl true  -- -6 % 3 == 0
theorem fdiv_9 : Eq (Int.beq (Int.fdiv (Int.negSucc 5) (Int.negSucc 2)) (Int.ofNat 2)) true := Eq.refl true  -- -6 // -3 == 2
theorem fmod_9 : Eq (Int.beq (Int.fmod (Int.negSucc 5) (Int.negSucc 2)) (Int.ofNat 0)) true := Eq.refl true  -- -6 % -3 == 0
theorem fdiv_10 : Eq (Int.beq (Int.fdiv (Int.negSucc 5) (Int.ofNat 1)) (Int.negSucc 5)) true := Eq.refl true  -- -6 // 1 == -6
theorem fmod_10 : Eq (Int.beq (Int.fmod (Int.negSucc 5) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- -6 % 1 == 0
theorem fdiv_11 : Eq (Int.beq (Int.fdiv (Int.negSucc 5) (Int.negSucc 0)) (Int.ofNat 6)) true := Eq.refl true  -- -6 // -1 == 6
theorem fmod_11 : Eq (Int.beq (Int.fmod (Int.negSucc 5) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- -6 % -1 == 0
theorem fdiv_12 : Eq (Int.beq (Int.fdiv (Int.negSucc 0) (Int.ofNat 2)) (Int.negSucc 0)) true := Eq.refl true  -- -1 // 2 == -1
theorem fmod_12 : Eq (Int.beq (Int.fmod (Int.negSucc 0) (Int.ofNat 2)) (Int.ofNat 1)) true := Eq.refl true  -- -1 % 2 == 1
theorem fdiv_13 : Eq (Int.beq (Int.fdiv (Int.negSucc 0) (Int.negSucc 1)) (Int.ofNat 0)) true := Eq.refl true  -- -1 // -2 == 0
theorem fmod_13 : Eq (Int.beq (Int.fmod (Int.negSucc 0) (Int.negSucc 1)) (Int.negSucc 0)) true := Eq.refl true  -- -1 % -2 == -1
theorem fdiv_14 : Eq (Int.beq (Int.fdiv (Int.negSucc 0) (Int.ofNat 3)) (Int.negSucc 0)) true := Eq.refl true  -- -1 // 3 == -1
theorem fmod_14 : Eq (Int.beq (Int.fmod (Int.negSucc 0) (Int.ofNat 3)) (Int.ofNat 2)) true := Eq.refl true  -- -1 % 3 == 2
theorem fdiv_15 : Eq (Int.beq (Int.fdiv (Int.negSucc 0) (Int.negSucc 2)) (Int.ofNat 0)) true := Eq.refl true  -- -1 // -3 == 0
theorem fmod_15 : Eq (Int.beq (Int.fmod (Int.negSucc 0) (Int.negSucc 2)) (Int.negSucc 0)) true := Eq.refl true  -- -1 % -3 == -1
theorem fdiv_16 : Eq (Int.beq (Int.fdiv (Int.negSucc 0) (Int.ofNat 1)) (Int.negSucc 0)) true := Eq.refl true  -- -1 // 1 == -1
theorem fmod_16 : Eq (Int.beq (Int.fmod (Int.negSucc 0) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- -1 % 1 == 0
theorem fdiv_17 : Eq (Int.beq (Int.fdiv (Int.negSucc 0) (Int.negSucc 0)) (Int.ofNat 1)) true := Eq.refl true  -- -1 // -1 == 1
theorem fmod_17 : Eq (Int.beq (Int.fmod (Int.negSucc 0) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- -1 % -1 == 0
theorem fdiv_18 : Eq (Int.beq (Int.fdiv (Int.ofNat 0) (Int.ofNat 2)) (Int.ofNat 0)) true := Eq.refl true  -- 0 // 2 == 0
theorem fmod_18 : Eq (Int.beq (Int.fmod (Int.ofNat 0) (Int.ofNat 2)) (Int.ofNat 0)) true := Eq.refl true  -- 0 % 2 == 0
theorem fdiv_19 : Eq (Int.beq (Int.fdiv (Int.ofNat 0) (Int.negSucc 1)) (Int.ofNat 0)) true := Eq.refl true  -- 0 // -2 == 0
theorem fmod_19 : Eq (Int.beq (Int.fmod (Int.ofNat 0) (Int.negSucc 1)) (Int.ofNat 0)) true := Eq.refl true  -- 0 % -2 == 0
theorem fdiv_20 : Eq (Int.beq (Int.fdiv (Int.ofNat 0) (Int.ofNat 3)) (Int.ofNat 0)) true := Eq.refl true  -- 0 // 3 == 0
theorem fmod_20 : Eq (Int.beq (Int.fmod (Int.ofNat 0) (Int.ofNat 3)) (Int.ofNat 0)) true := Eq.refl true  -- 0 % 3 == 0
theorem fdiv_21 : Eq (Int.beq (Int.fdiv (Int.ofNat 0) (Int.negSucc 2)) (Int.ofNat 0)) true := Eq.refl true  -- 0 // -3 == 0
theorem fmod_21 : Eq (Int.beq (Int.fmod (Int.ofNat 0) (Int.negSucc 2)) (Int.ofNat 0)) true := Eq.refl true  -- 0 % -3 == 0
theorem fdiv_22 : Eq (Int.beq (Int.fdiv (Int.ofNat 0) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- 0 // 1 == 0
theorem fmod_22 : Eq (Int.beq (Int.fmod (Int.ofNat 0) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- 0 % 1 == 0
theorem fdiv_23 : Eq (Int.beq (Int.fdiv (Int.ofNat 0) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- 0 // -1 == 0
theorem fmod_23 : Eq (Int.beq (Int.fmod (Int.ofNat 0) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- 0 % -1 == 0
theorem fdiv_24 : Eq (Int.beq (Int.fdiv (Int.ofNat 1) (Int.ofNat 2)) (Int.ofNat 0)) true := Eq.refl true  -- 1 // 2 == 0
theorem fmod_24 : Eq (Int.beq (Int.fmod (Int.ofNat 1) (Int.ofNat 2)) (Int.ofNat 1)) true := Eq.refl true  -- 1 % 2 == 1
theorem fdiv_25 : Eq (Int.beq (Int.fdiv (Int.ofNat 1) (Int.negSucc 1)) (Int.negSucc 0)) true := Eq.refl true  -- 1 // -2 == -1
theorem fmod_25 : Eq (Int.beq (Int.fmod (Int.ofNat 1) (Int.negSucc 1)) (Int.negSucc 0)) true := Eq.refl true  -- 1 % -2 == -1
theorem fdiv_26 : Eq (Int.beq (Int.fdiv (Int.ofNat 1) (Int.ofNat 3)) (Int.ofNat 0)) true := Eq.refl true  -- 1 // 3 == 0
theorem fmod_26 : Eq (Int.beq (Int.fmod (Int.ofNat 1) (Int.ofNat 3)) (Int.ofNat 1)) true := Eq.refl true  -- 1 % 3 == 1
theorem fdiv_27 : Eq (Int.beq (Int.fdiv (Int.ofNat 1) (Int.negSucc 2)) (Int.negSucc 0)) true := Eq.refl true  -- 1 // -3 == -1
theorem fmod_27 : Eq (Int.beq (Int.fmod (Int.ofNat 1) (Int.negSucc 2)) (Int.negSucc 1)) true := Eq.refl true  -- 1 % -3 == -2
theorem fdiv_28 : Eq (Int.beq (Int.fdiv (Int.ofNat 1) (Int.ofNat 1)) (Int.ofNat 1)) true := Eq.refl true  -- 1 // 1 == 1
theorem fmod_28 : Eq (Int.beq (Int.fmod (Int.ofNat 1) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- 1 % 1 == 0
theorem fdiv_29 : Eq (Int.beq (Int.fdiv (Int.ofNat 1) (Int.negSucc 0)) (Int.negSucc 0)) true := Eq.refl true  -- 1 // -1 == -1
theorem fmod_29 : Eq (Int.beq (Int.fmod (Int.ofNat 1) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- 1 % -1 == 0
theorem fdiv_30 : Eq (Int.beq (Int.fdiv (Int.ofNat 6) (Int.ofNat 2)) (Int.ofNat 3)) true := Eq.refl true  -- 6 // 2 == 3
theorem fmod_30 : Eq (Int.beq (Int.fmod (Int.ofNat 6) (Int.ofNat 2)) (Int.ofNat 0)) true := Eq.refl true  -- 6 % 2 == 0
theorem fdiv_31 : Eq (Int.beq (Int.fdiv (Int.ofNat 6) (Int.negSucc 1)) (Int.negSucc 2)) true := Eq.refl true  -- 6 // -2 == -3
theorem fmod_31 : Eq (Int.beq (Int.fmod (Int.ofNat 6) (Int.negSucc 1)) (Int.ofNat 0)) true := Eq.refl true  -- 6 % -2 == 0
theorem fdiv_32 : Eq (Int.beq (Int.fdiv (Int.ofNat 6) (Int.ofNat 3)) (Int.ofNat 2)) true := Eq.refl true  -- 6 // 3 == 2
theorem fmod_32 : Eq (Int.beq (Int.fmod (Int.ofNat 6) (Int.ofNat 3)) (Int.ofNat 0)) true := Eq.refl true  -- 6 % 3 == 0
theorem fdiv_33 : Eq (Int.beq (Int.fdiv (Int.ofNat 6) (Int.negSucc 2)) (Int.negSucc 1)) true := Eq.refl true  -- 6 // -3 == -2
theorem fmod_33 : Eq (Int.beq (Int.fmod (Int.ofNat 6) (Int.negSucc 2)) (Int.ofNat 0)) true := Eq.refl true  -- 6 % -3 == 0
theorem fdiv_34 : Eq (Int.beq (Int.fdiv (Int.ofNat 6) (Int.ofNat 1)) (Int.ofNat 6)) true := Eq.refl true  -- 6 // 1 == 6
theorem fmod_34 : Eq (Int.beq (Int.fmod (Int.ofNat 6) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- 6 % 1 == 0
theorem fdiv_35 : Eq (Int.beq (Int.fdiv (Int.ofNat 6) (Int.negSucc 0)) (Int.negSucc 5)) true := Eq.refl true  -- 6 // -1 == -6
theorem fmod_35 : Eq (Int.beq (Int.fmod (Int.ofNat 6) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- 6 % -1 == 0
theorem fdiv_36 : Eq (Int.beq (Int.fdiv (Int.ofNat 7) (Int.ofNat 2)) (Int.ofNat 3)) true := Eq.refl true  -- 7 // 2 == 3
theorem fmod_36 : Eq (Int.beq (Int.fmod (Int.ofNat 7) (Int.ofNat 2)) (Int.ofNat 1)) true := Eq.refl true  -- 7 % 2 == 1
theorem fdiv_37 : Eq (Int.beq (Int.fdiv (Int.ofNat 7) (Int.negSucc 1)) (Int.negSucc 3)) true := Eq.refl true  -- 7 // -2 == -4
theorem fmod_37 : Eq (Int.beq (Int.fmod (Int.ofNat 7) (Int.negSucc 1)) (Int.negSucc 0)) true := Eq.refl true  -- 7 % -2 == -1
theorem fdiv_38 : Eq (Int.beq (Int.fdiv (Int.ofNat 7) (Int.ofNat 3)) (Int.ofNat 2)) true := Eq.refl true  -- 7 // 3 == 2
theorem fmod_38 : Eq (Int.beq (Int.fmod (Int.ofNat 7) (Int.ofNat 3)) (Int.ofNat 1)) true := Eq.refl true  -- 7 % 3 == 1
theorem fdiv_39 : Eq (Int.beq (Int.fdiv (Int.ofNat 7) (Int.negSucc 2)) (Int.negSucc 2)) true := Eq.refl true  -- 7 // -3 == -3
theorem fmod_39 : Eq (Int.beq (Int.fmod (Int.ofNat 7) (Int.negSucc 2)) (Int.negSucc 1)) true := Eq.refl true  -- 7 % -3 == -2
theorem fdiv_40 : Eq (Int.beq (Int.fdiv (Int.ofNat 7) (Int.ofNat 1)) (Int.ofNat 7)) true := Eq.refl true  -- 7 // 1 == 7
theorem fmod_40 : Eq (Int.beq (Int.fmod (Int.ofNat 7) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true  -- 7 % 1 == 0
theorem fdiv_41 : Eq (Int.beq (Int.fdiv (Int.ofNat 7) (Int.negSucc 0)) (Int.negSucc 6)) true := Eq.refl true  -- 7 // -1 == -7
theorem fmod_41 : Eq (Int.beq (Int.fmod (Int.ofNat 7) (Int.negSucc 0)) (Int.ofNat 0)) true := Eq.refl true  -- 7 % -1 == 0
theorem fdiv_42 : Eq (Int.beq (Int.fdiv (Int.negSucc 6) (Int.ofNat 0)) (Int.ofNat 0)) true := Eq.refl true  -- -7 // 0 := 0 (Python raises)
theorem fmod_42 : Eq (Int.beq (Int.fmod (Int.negSucc 6) (Int.ofNat 0)) (Int.negSucc 6)) true := Eq.refl true  -- -7 % 0 := -7 (Python raises)
theorem fdiv_43 : Eq (Int.beq (Int.fdiv (Int.ofNat 0) (Int.ofNat 0)) (Int.ofNat 0)) true := Eq.refl true  -- 0 // 0 := 0 (Python raises)
theorem fmod_43 : Eq (Int.beq (Int.fmod (Int.ofNat 0) (Int.ofNat 0)) (Int.ofNat 0)) true := Eq.refl true  -- 0 % 0 := 0 (Python raises)
theorem fdiv_44 : Eq (Int.beq (Int.fdiv (Int.ofNat 7) (Int.ofNat 0)) (Int.ofNat 0)) true := Eq.refl true  -- 7 // 0 := 0 (Python raises)
theorem fmod_44 : Eq (Int.beq (Int.fmod (Int.ofNat 7) (Int.ofNat 0)) (Int.ofNat 7)) true := Eq.refl true  -- 7 % 0 := 7 (Python raises)

theorem int_add_0 : Eq (Int.beq (Int.add (Int.negSucc 6) (Int.ofNat 2)) (Int.negSucc 4)) true := Eq.refl true
theorem int_sub_0 : Eq (Int.beq (Int.sub (Int.negSucc 6) (Int.ofNat 2)) (Int.negSucc 8)) true := Eq.refl true
theorem int_mul_0 : Eq (Int.beq (Int.mul (Int.negSucc 6) (Int.ofNat 2)) (Int.negSucc 13)) true := Eq.refl true
theorem int_blt_0 : Eq (Int.blt (Int.negSucc 6) (Int.ofNat 2)) true := Eq.refl _
theorem int_ble_0 : Eq (Int.ble (Int.negSucc 6) (Int.ofNat 2)) true := Eq.refl _
theorem int_beq_0 : Eq (Int.beq (Int.negSucc 6) (Int.ofNat 2)) false := Eq.refl _
theorem int_add_1 : Eq (Int.beq (Int.add (Int.ofNat 7) (Int.negSucc 1)) (Int.ofNat 5)) true := Eq.refl true
theorem int_sub_1 : Eq (Int.beq (Int.sub (Int.ofNat 7) (Int.negSucc 1)) (Int.ofNat 9)) true := Eq.refl true
theorem int_mul_1 : Eq (Int.beq (Int.mul (Int.ofNat 7) (Int.negSucc 1)) (Int.negSucc 13)) true := Eq.refl true
theorem int_blt_1 : Eq (Int.blt (Int.ofNat 7) (Int.negSucc 1)) false := Eq.refl _
theorem int_ble_1 : Eq (Int.ble (Int.ofNat 7) (Int.negSucc 1)) false := Eq.refl _
theorem int_beq_1 : Eq (Int.beq (Int.ofNat 7) (Int.negSucc 1)) false := Eq.refl _
theorem int_add_2 : Eq (Int.beq (Int.add (Int.negSucc 2) (Int.negSucc 3)) (Int.negSucc 6)) true := Eq.refl true
theorem int_sub_2 : Eq (Int.beq (Int.sub (Int.negSucc 2) (Int.negSucc 3)) (Int.ofNat 1)) true := Eq.refl true
theorem int_mul_2 : Eq (Int.beq (Int.mul (Int.negSucc 2) (Int.negSucc 3)) (Int.ofNat 12)) true := Eq.refl true
theorem int_blt_2 : Eq (Int.blt (Int.negSucc 2) (Int.negSucc 3)) false := Eq.refl _
theorem int_ble_2 : Eq (Int.ble (Int.negSucc 2) (Int.negSucc 3)) false := Eq.refl _
theorem int_beq_2 : Eq (Int.beq (Int.negSucc 2) (Int.negSucc 3)) false := Eq.refl _
theorem int_add_3 : Eq (Int.beq (Int.add (Int.ofNat 0) (Int.negSucc 4)) (Int.negSucc 4)) true := Eq.refl true
theorem int_sub_3 : Eq (Int.beq (Int.sub (Int.ofNat 0) (Int.negSucc 4)) (Int.ofNat 5)) true := Eq.refl true
theorem int_mul_3 : Eq (Int.beq (Int.mul (Int.ofNat 0) (Int.negSucc 4)) (Int.ofNat 0)) true := Eq.refl true
theorem int_blt_3 : Eq (Int.blt (Int.ofNat 0) (Int.negSucc 4)) false := Eq.refl _
theorem int_ble_3 : Eq (Int.ble (Int.ofNat 0) (Int.negSucc 4)) false := Eq.refl _
theorem int_beq_3 : Eq (Int.beq (Int.ofNat 0) (Int.negSucc 4)) false := Eq.refl _
theorem int_add_4 : Eq (Int.beq (Int.add (Int.ofNat 5) (Int.ofNat 5)) (Int.ofNat 10)) true := Eq.refl true
theorem int_sub_4 : Eq (Int.beq (Int.sub (Int.ofNat 5) (Int.ofNat 5)) (Int.ofNat 0)) true := Eq.refl true
theorem int_mul_4 : Eq (Int.beq (Int.mul (Int.ofNat 5) (Int.ofNat 5)) (Int.ofNat 25)) true := Eq.refl true
theorem int_blt_4 : Eq (Int.blt (Int.ofNat 5) (Int.ofNat 5)) false := Eq.refl _
theorem int_ble_4 : Eq (Int.ble (Int.ofNat 5) (Int.ofNat 5)) true := Eq.refl _
theorem int_beq_4 : Eq (Int.beq (Int.ofNat 5) (Int.ofNat 5)) true := Eq.refl _
theorem int_add_5 : Eq (Int.beq (Int.add (Int.negSucc 0) (Int.ofNat 1)) (Int.ofNat 0)) true := Eq.refl true
theorem int_sub_5 : Eq (Int.beq (Int.sub (Int.negSucc 0) (Int.ofNat 1)) (Int.negSucc 1)) true := Eq.refl true
theorem int_mul_5 : Eq (Int.beq (Int.mul (Int.negSucc 0) (Int.ofNat 1)) (Int.negSucc 0)) true := Eq.refl true
theorem int_blt_5 : Eq (Int.blt (Int.negSucc 0) (Int.ofNat 1)) true := Eq.refl _
theorem int_ble_5 : Eq (Int.ble (Int.negSucc 0) (Int.ofNat 1)) true := Eq.refl _
theorem int_beq_5 : Eq (Int.beq (Int.negSucc 0) (Int.ofNat 1)) false := Eq.refl _
theorem int_add_6 : Eq (Int.beq (Int.add (Int.ofNat 12) (Int.ofNat 0)) (Int.ofNat 12)) true := Eq.refl true
theorem int_sub_6 : Eq (Int.beq (Int.sub (Int.ofNat 12) (Int.ofNat 0)) (Int.ofNat 12)) true := Eq.refl true
theorem int_mul_6 : Eq (Int.beq (Int.mul (Int.ofNat 12) (Int.ofNat 0)) (Int.ofNat 0)) true := Eq.refl true
theorem int_blt_6 : Eq (Int.blt (Int.ofNat 12) (Int.ofNat 0)) false := Eq.refl _
theorem int_ble_6 : Eq (Int.ble (Int.ofNat 12) (Int.ofNat 0)) false := Eq.refl _
theorem int_beq_6 : Eq (Int.beq (Int.ofNat 12) (Int.ofNat 0)) false := Eq.refl _
theorem int_neg_0 : Eq (Int.beq (Int.neg (Int.negSucc 6)) (Int.ofNat 7)) true := Eq.refl true
theorem int_natAbs_0 : Eq (Int.natAbs (Int.negSucc 6)) 7 := Eq.refl 7
theorem int_neg_7 : Eq (Int.beq (Int.neg (Int.ofNat 0)) (Int.ofNat 0)) true := Eq.refl true
theorem int_natAbs_7 : Eq (Int.natAbs (Int.ofNat 0)) 0 := Eq.refl 0
theorem int_neg_14 : Eq (Int.beq (Int.neg (Int.ofNat 7)) (Int.negSucc 6)) true := Eq.refl true
theorem int_natAbs_14 : Eq (Int.natAbs (Int.ofNat 7)) 7 := Eq.refl 7
theorem int_numeral : Eq (Int.beq 5 (Int.ofNat 5)) true := Eq.refl true
theorem int_decEq : Not (Eq (Int.negSucc 0) (Int.ofNat 1)) :=
  of_decide_eq_false (p := Eq (Int.negSucc 0) (Int.ofNat 1)) (Eq.refl false)
theorem int_lt : Int.lt (Int.negSucc 3) (Int.ofNat 0) :=
  of_decide_eq_true (p := Int.lt (Int.negSucc 3) (Int.ofNat 0)) (Eq.refl true)

/-! ## Strings and characters -/

theorem str_len_utf8 : Eq (String.length "héllo") 5 := Eq.refl 5
theorem str_len_escape : Eq (String.length "a\nb") 3 := Eq.refl 3
theorem str_newline : Eq (List.headD (List.tail (String.data "a\nb")) 'x') (Char.ofNat 10) := Eq.refl _
theorem str_char_e : Eq 'é' (Char.ofNat 233) := Eq.refl _
theorem str_char_astral : Eq (List.headD (String.data "𝔸") 'x') (Char.ofNat 120120) := Eq.refl _
theorem str_empty : Eq (String.length "") 0 := Eq.refl 0
theorem str_beq_same : Eq (String.beq "ab" "ab") true := Eq.refl true
theorem str_beq_diff : Eq (String.beq "ab" "ac") false := Eq.refl false
theorem str_beq_prefix : Eq (String.beq "ab" "abc") false := Eq.refl false
theorem str_beq_utf8 : Eq (String.beq "héllo" "h\u00e9llo") true := Eq.refl true
theorem str_append : Eq (String.beq (String.append "foo" "bar") "foobar") true := Eq.refl true
theorem str_decEq : Eq "héllo" "héllo" :=
  of_decide_eq_true (p := Eq "héllo" "héllo") (Eq.refl true)
theorem str_decNe : Not (Eq "ab" "abc") :=
  of_decide_eq_false (p := Eq "ab" "abc") (Eq.refl false)
theorem str_literal_is_ofList : Eq "ab" (String.ofList (List.cons 'a' (List.cons 'b' List.nil))) :=
  Eq.refl _

/-! ## Decidable, ite, dite, logic -/

theorem dec_and : And (Eq (Nat.gcd 12 18) 6) (Not (Eq true false)) :=
  of_decide_eq_true (p := And (Eq (Nat.gcd 12 18) 6) (Not (Eq true false))) (Eq.refl true)
theorem dec_or : Or (Eq (Nat.mod 7 0) 0) (Nat.lt 2 3) :=
  of_decide_eq_true (p := Or (Eq (Nat.mod 7 0) 0) (Nat.lt 2 3)) (Eq.refl true)
theorem dec_iff : Iff (Eq 'a' 'b') (Eq (Nat.sub 3 5) 1) :=
  of_decide_eq_true (p := Iff (Eq 'a' 'b') (Eq (Nat.sub 3 5) 1)) (Eq.refl true)
theorem dec_le : Nat.le 3 3 := of_decide_eq_true (p := Nat.le 3 3) (Eq.refl true)
theorem dec_list : Eq (List.cons (1 : Nat) List.nil) (List.cons 1 List.nil) :=
  of_decide_eq_true (p := Eq (List.cons (1 : Nat) List.nil) (List.cons 1 List.nil)) (Eq.refl true)
theorem ite_t : Eq (ite (Eq (Nat.add 2 2) 4) 1 0) 1 := Eq.refl 1
theorem ite_f : Eq (ite (Nat.lt 5 2) 1 0) 0 := Eq.refl 0
theorem dite_t : Eq (dite (Eq (3 : Nat) 3) (fun _ => "yes") (fun _ => "no")) "yes" := Eq.refl _
theorem nomatch_nat : Not (Eq (Nat.succ 4) 0) := fun h => nomatch h
theorem nomatch_list : Not (Eq (List.cons 'a' List.nil) List.nil) := fun h => nomatch h
theorem exists_sq : Exists (fun n : Nat => Eq (Nat.mul n n) 49) := ⟨7, Eq.refl 49⟩

/-! ## Literal and constructor patterns in `match` -/

def classify : Nat → Nat
  | 0 => 100
  | 5 => 200
  | .succ (.succ n) => n
  | _ => 300

theorem classify_0 : Eq (classify 0) 100 := Eq.refl 100
theorem classify_1 : Eq (classify 1) 300 := Eq.refl 300
theorem classify_5 : Eq (classify 5) 200 := Eq.refl 200
theorem classify_9 : Eq (classify 9) 7 := Eq.refl 7

def greet : String → Nat
  | "hi" => 1
  | "héllo" => 2
  | _ => 0

theorem greet_2 : Eq (greet "héllo") 2 := Eq.refl 2
theorem greet_0 : Eq (greet "hello") 0 := Eq.refl 0

/-! ## No axioms -/

#print axioms mod_1
#print axioms fdiv_0
#print axioms str_decEq
#print axioms dec_iff

end

