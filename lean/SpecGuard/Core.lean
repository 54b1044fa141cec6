/-
SpecGuard.Core — a self-contained, axiom-free core theory for SpecGuard
certificates.

The toolchain used to check certificates ships no `Init` library, so this
file is a `prelude` module that builds everything from scratch:
logic, `Bool`, `Nat` (with the 14 kernel-accelerated operations), `Int`
(with Python floor division), `Option`, `Prod`, `List`, `Char`, `String`
and `Decidable`.

Ground rules (see lean/README.md):
* No notation, no tactics: every term is written in prefix form
  (`Eq a b`, `Nat.add a b`, `And p q`, ...).
* The only axioms are the three `unsafe` placeholders the elaborator
  needs by name; no theorem can use them.
* Several names are looked up by the elaborator or the kernel by their
  exact spelling (`PUnit`, `Eq`, `HEq`, `Eq.ndrec`, `Nat.add`, ...,
  `String.ofList`, `Char.ofNat`, `Decidable`, `OfNat`, `instOfNatNat`, ...).
  Do not rename them.
* The kernel computes `Nat.add sub mul div mod pow gcd beq ble land lor
  xor shiftLeft shiftRight` on literals with GMP without looking at the
  definitions below, so each definition here has exactly GMP's meaning
  (`x / 0 = 0`, `x % 0 = x`, truncated subtraction, `gcd 0 0 = 0`, ...).
  CoreTest.lean checks them against unaccelerated copies.
-/
prelude
-- `PUnit : Sort u` lives in every universe, which the default check refuses.
set_option bootstrap.inductiveCheckResultingUniverse false
-- `T.ctorIdx` generation needs `cond`, `PULift`, `Nat.decEq` and `dite`;
-- it is switched back on once those exist (section "Decidable").
set_option genCtorIdx false

universe u v w

noncomputable section

/-! ## Unit and the compiler placeholders -/

/-- Must be the first inductive type declared. -/
inductive PUnit : Sort u
  | unit : PUnit

-- Placeholders the elaborator refers to by name (code generation only).
unsafe axiom lcErased : Type
unsafe axiom lcAny : Type
unsafe axiom lcVoid : Type

abbrev Unit : Type := PUnit
abbrev Unit.unit : Unit := PUnit.unit

/-! ## Equality -/

inductive Eq {α : Sort u} : α → α → Prop
  | refl (a : α) : Eq a a

/-- Non-dependent elimination; the motive's universe comes first. -/
abbrev Eq.ndrec.{u1, u2} {α : Sort u2} {a : α} {motive : α → Sort u1}
    (m : motive a) {b : α} (h : Eq a b) : motive b :=
  Eq.rec (motive := fun x _ => motive x) m h

/-- `Eq.ndrec` with the equation reversed (used by literal `match`). -/
abbrev Eq.ndrec_symm.{u1, u2} {α : Sort u2} {a : α} {motive : α → Sort u1}
    (m : motive a) {b : α} (h : Eq b a) : motive b :=
  Eq.rec (motive := fun x _ => motive x) m (Eq.rec (motive := fun x _ => Eq x b) (Eq.refl b) h)

def id {α : Sort u} (a : α) : α := a

def cast {α β : Sort u} (h : Eq α β) (a : α) : β :=
  Eq.rec (motive := fun x _ => x) a h

inductive HEq : {α : Sort u} → α → {β : Sort u} → β → Prop
  | refl (a : α) : HEq a a

theorem eq_of_heq {α : Sort u} {a a' : α} (h : HEq a a') : Eq a a' :=
  have aux : ∀ (β : Sort u) (b : β) (_ : HEq a b) (p : Eq α β), Eq (cast p a) b :=
    fun _ _ e => HEq.rec (motive := fun {γ} c _ => ∀ (p : Eq α γ), Eq (cast p a) c)
      (fun _ => Eq.refl a) e
  aux α a' h (Eq.refl α)

theorem heq_of_eq {α : Sort u} {a b : α} (h : Eq a b) : HEq a b :=
  Eq.ndrec (motive := fun x => HEq a x) (HEq.refl a) h

theorem Eq.symm {α : Sort u} {a b : α} (h : Eq a b) : Eq b a :=
  Eq.ndrec (motive := fun x => Eq x a) (Eq.refl a) h

theorem Eq.trans {α : Sort u} {a b c : α} (h₁ : Eq a b) (h₂ : Eq b c) : Eq a c :=
  Eq.ndrec (motive := fun x => Eq a x) h₁ h₂

def Eq.mp {α β : Sort u} (h : Eq α β) (a : α) : β := cast h a

def Eq.mpr {α β : Sort u} (h : Eq α β) (b : β) : α := cast (Eq.symm h) b

theorem congrArg {α : Sort u} {β : Sort v} {a₁ a₂ : α} (f : α → β)
    (h : Eq a₁ a₂) : Eq (f a₁) (f a₂) :=
  Eq.ndrec (motive := fun x => Eq (f a₁) (f x)) (Eq.refl (f a₁)) h

theorem congrFun {α : Sort u} {β : α → Sort v} {f g : (x : α) → β x}
    (h : Eq f g) (a : α) : Eq (f a) (g a) :=
  @Eq.ndrec ((x : α) → β x) f (fun k => Eq (f a) (k a)) (Eq.refl (f a)) g h

/-! ## Products (needed by structural recursion) -/

structure PProd (α : Sort u) (β : Sort v) where
  fst : α
  snd : β

structure Prod (α : Type u) (β : Type v) where
  fst : α
  snd : β

/-- Universe lifting (`PULift.{r, s}`: lift `Sort s` to at least `Sort r`). -/
structure PULift.{r, s} (α : Sort s) : Sort (max s r 1) where
  up ::
  down : α

structure ULift.{r, s} (α : Type s) : Type (max s r) where
  up ::
  down : α

/-! ## Propositional logic -/

inductive True : Prop
  | intro : True

inductive False : Prop

def Not (a : Prop) : Prop := a → False

def Ne {α : Sort u} (a b : α) : Prop := Not (Eq a b)

def False.elim {C : Sort u} (h : False) : C := False.rec (motive := fun _ => C) h

def absurd {a : Prop} {b : Sort v} (h₁ : a) (h₂ : Not a) : b := False.elim (h₂ h₁)

structure And (a b : Prop) : Prop where
  intro ::
  left : a
  right : b

inductive Or (a b : Prop) : Prop
  | inl (h : a) : Or a b
  | inr (h : b) : Or a b

structure Iff (a b : Prop) : Prop where
  intro ::
  mp : a → b
  mpr : b → a

inductive Exists {α : Sort u} (p : α → Prop) : Prop
  | intro (w : α) (h : p w) : Exists p

structure Subtype {α : Sort u} (p : α → Prop) where
  val : α
  property : p val

/-- Marks a class parameter as an output of instance search. -/
@[reducible] def outParam (α : Sort u) : Sort u := α

/-! ## Bool -/

-- Constructor order matters: the kernel encodes results as `false`/`true`.
inductive Bool : Type
  | false : Bool
  | true : Bool

export Bool (false true)

/-- `cond c x y` is "if c then x else y". -/
def cond {α : Sort u} (c : Bool) (x y : α) : α :=
  match c with
  | true => x
  | false => y

def Bool.not (b : Bool) : Bool := cond b false true
def Bool.and (a b : Bool) : Bool := cond a b false
def Bool.or (a b : Bool) : Bool := cond a true b
def Bool.xor (a b : Bool) : Bool := cond a (Bool.not b) b

theorem Bool.false_ne_true : Not (Eq false true) :=
  fun h => @Eq.ndrec Bool false (fun b => cond b False True) True.intro true h

theorem Bool.true_ne_false : Not (Eq true false) :=
  fun h => Bool.false_ne_true (Eq.symm h)

/-! ## Nat: type, literals, and the helpers that literal matching needs

Until `Nat.decEq` exists, `match` on `Nat` is unavailable (the elaborator
compiles `Nat` patterns via literals), so the first definitions use
`Nat.rec` directly. -/

inductive Nat : Type
  | zero : Nat
  | succ (n : Nat) : Nat

class OfNat (α : Type u) (_ : Nat) where
  ofNat : α

@[default_instance] instance instOfNatNat (n : Nat) : OfNat Nat n := ⟨n⟩

def Nat.pred (n : Nat) : Nat := Nat.rec (motive := fun _ => Nat) Nat.zero (fun k _ => k) n

def Nat.isZero (n : Nat) : Bool := Nat.rec (motive := fun _ => Bool) true (fun _ _ => false) n

/-- Equality test (accelerated). -/
def Nat.beq (n : Nat) : Nat → Bool :=
  Nat.rec (motive := fun _ => Nat → Bool)
    (fun m => Nat.isZero m)
    (fun _ ih m => Nat.rec (motive := fun _ => Bool) false (fun m' _ => ih m') m)
    n

/-- Truncated subtraction: `sub n m = 0` when `m ≥ n` (accelerated). -/
def Nat.sub (n m : Nat) : Nat := Nat.rec (motive := fun _ => Nat) n (fun _ ih => Nat.pred ih) m

theorem Nat.succ.inj {n m : Nat} (h : Eq (Nat.succ n) (Nat.succ m)) : Eq n m :=
  congrArg Nat.pred h

theorem Nat.zero_ne_succ {n : Nat} : Not (Eq Nat.zero (Nat.succ n)) :=
  fun h => Bool.true_ne_false (congrArg Nat.isZero h)

theorem Nat.eq_of_beq_eq_true : ∀ (n m : Nat), Eq (Nat.beq n m) true → Eq n m :=
  fun n => Nat.rec (motive := fun n => ∀ (m : Nat), Eq (Nat.beq n m) true → Eq n m)
    (fun m => Nat.rec (motive := fun m => Eq (Nat.beq Nat.zero m) true → Eq Nat.zero m)
      (fun _ => Eq.refl Nat.zero)
      (fun _ _ h => False.elim (Bool.false_ne_true h)) m)
    (fun n ih m => Nat.rec
      (motive := fun m => Eq (Nat.beq (Nat.succ n) m) true → Eq (Nat.succ n) m)
      (fun h => False.elim (Bool.false_ne_true h))
      (fun m _ h => congrArg Nat.succ (ih m h)) m)
    n

theorem Nat.ne_of_beq_eq_false : ∀ (n m : Nat), Eq (Nat.beq n m) false → Not (Eq n m) :=
  fun n => Nat.rec (motive := fun n => ∀ (m : Nat), Eq (Nat.beq n m) false → Not (Eq n m))
    (fun m => Nat.rec (motive := fun m => Eq (Nat.beq Nat.zero m) false → Not (Eq Nat.zero m))
      (fun h _ => Bool.true_ne_false h)
      (fun _ _ _ e => Nat.zero_ne_succ e) m)
    (fun n ih m => Nat.rec
      (motive := fun m => Eq (Nat.beq (Nat.succ n) m) false → Not (Eq (Nat.succ n) m))
      (fun _ e => Nat.zero_ne_succ (Eq.symm e))
      (fun m _ h e => ih m h (Nat.succ.inj e)) m)
    n

theorem Nat.beq_refl (n : Nat) : Eq (Nat.beq n n) true :=
  Nat.rec (motive := fun n => Eq (Nat.beq n n) true) (Eq.refl true) (fun _ ih => ih) n

/-- Used by the elaborator to refute equations between different
constructors (`nomatch h`): it compares `T.ctorIdx` of both sides. -/
theorem noConfusion_of_Nat {α : Sort u} (f : α → Nat) {a b : α} (h : Eq a b) :
    Bool.rec (motive := fun _ => Prop) False True (Nat.beq (f a) (f b)) :=
  Eq.ndrec (motive := fun x => Bool.rec (motive := fun _ => Prop) False True (Nat.beq (f a) (f x)))
    (@Eq.ndrec_symm Bool true (fun c => Bool.rec (motive := fun _ => Prop) False True c)
      True.intro (Nat.beq (f a) (f a)) (Nat.beq_refl (f a)))
    h

-- `ctorIdx` for the types declared while `genCtorIdx` was off.
protected def Bool.ctorIdx (b : Bool) : Nat := cond b 1 0
protected def Nat.ctorIdx (n : Nat) : Nat := Nat.rec (motive := fun _ => Nat) 0 (fun _ _ => 1) n

/-! ## Decidable -/

class inductive Decidable (p : Prop) : Type
  | isFalse (h : Not p) : Decidable p
  | isTrue (h : p) : Decidable p

protected def Decidable.ctorIdx {p : Prop} (d : Decidable p) : Nat :=
  Decidable.rec (motive := fun _ => Nat) (fun _ => 0) (fun _ => 1) d

abbrev DecidableEq (α : Sort u) : Sort (max 1 u) := (a b : α) → Decidable (Eq a b)

def Nat.decEq (n m : Nat) : Decidable (Eq n m) :=
  Bool.rec (motive := fun b => Eq (Nat.beq n m) b → Decidable (Eq n m))
    (fun h => Decidable.isFalse (Nat.ne_of_beq_eq_false n m h))
    (fun h => Decidable.isTrue (Nat.eq_of_beq_eq_true n m h))
    (Nat.beq n m) (Eq.refl (Nat.beq n m))

instance instDecidableEqNat : DecidableEq Nat := Nat.decEq

def Decidable.decide (p : Prop) [h : Decidable p] : Bool :=
  match h with
  | .isFalse _ => false
  | .isTrue _ => true

export Decidable (isTrue isFalse decide)

/-- "if c then t else e" for a decidable proposition `c`. -/
def ite {α : Sort u} (c : Prop) [h : Decidable c] (t e : α) : α :=
  match h with
  | .isTrue _ => t
  | .isFalse _ => e

/-- Dependent if-then-else: both branches see the proof. -/
def dite {α : Sort u} (c : Prop) [h : Decidable c] (t : c → α) (e : Not c → α) : α :=
  match h with
  | .isTrue hc => t hc
  | .isFalse hn => e hn

set_option genCtorIdx true

def decEq {α : Sort u} [inst : DecidableEq α] (a b : α) : Decidable (Eq a b) := inst a b

theorem of_decide_eq_true {p : Prop} [inst : Decidable p] : Eq (decide p) true → p :=
  match inst with
  | .isTrue h => fun _ => h
  | .isFalse _ => fun e => False.elim (Bool.false_ne_true e)

theorem of_decide_eq_false {p : Prop} [inst : Decidable p] : Eq (decide p) false → Not p :=
  match inst with
  | .isTrue _ => fun e => False.elim (Bool.true_ne_false e)
  | .isFalse h => fun _ => h

theorem decide_eq_true {p : Prop} [inst : Decidable p] : p → Eq (decide p) true :=
  match inst with
  | .isTrue _ => fun _ => Eq.refl true
  | .isFalse h => fun hp => absurd hp h

theorem decide_eq_false {p : Prop} [inst : Decidable p] : Not p → Eq (decide p) false :=
  match inst with
  | .isTrue h => fun hn => absurd h hn
  | .isFalse _ => fun _ => Eq.refl false

instance instDecidableTrue : Decidable True := .isTrue True.intro

instance instDecidableFalse : Decidable False := .isFalse (fun h => h)

instance instDecidableNot {p : Prop} [dp : Decidable p] : Decidable (Not p) :=
  match dp with
  | .isTrue hp => .isFalse (fun hn => hn hp)
  | .isFalse hn => .isTrue hn

instance instDecidableAnd {p q : Prop} [dp : Decidable p] [dq : Decidable q] :
    Decidable (And p q) :=
  match dp, dq with
  | .isTrue hp, .isTrue hq => .isTrue ⟨hp, hq⟩
  | .isTrue _, .isFalse hq => .isFalse (fun h => hq h.right)
  | .isFalse hp, _ => .isFalse (fun h => hp h.left)

instance instDecidableOr {p q : Prop} [dp : Decidable p] [dq : Decidable q] :
    Decidable (Or p q) :=
  match dp, dq with
  | .isTrue hp, _ => .isTrue (.inl hp)
  | .isFalse _, .isTrue hq => .isTrue (.inr hq)
  | .isFalse hp, .isFalse hq => .isFalse (fun h => Or.rec (motive := fun _ => False) hp hq h)

instance instDecidableIff {p q : Prop} [dp : Decidable p] [dq : Decidable q] :
    Decidable (Iff p q) :=
  match dp, dq with
  | .isTrue hp, .isTrue hq => .isTrue ⟨fun _ => hq, fun _ => hp⟩
  | .isTrue hp, .isFalse hq => .isFalse (fun h => hq (h.mp hp))
  | .isFalse hp, .isTrue hq => .isFalse (fun h => hp (h.mpr hq))
  | .isFalse hp, .isFalse hq => .isTrue ⟨fun h => absurd h hp, fun h => absurd h hq⟩

def Bool.decEq (a b : Bool) : Decidable (Eq a b) :=
  match a, b with
  | false, false => .isTrue (Eq.refl false)
  | false, true => .isFalse Bool.false_ne_true
  | true, false => .isFalse Bool.true_ne_false
  | true, true => .isTrue (Eq.refl true)

instance instDecidableEqBool : DecidableEq Bool := Bool.decEq

/-! ## Nat arithmetic

Each of the 14 operations below is evaluated by the kernel with GMP on
literals; the definitions are the (total, structural) specification used
on open terms and must agree with GMP.  `div`, `mod`, `gcd` and the
bitwise operations recurse on an explicit fuel argument that is always
large enough (see the comments). -/

class Add (α : Type u) where
  add : α → α → α

class HAdd (α : Type u) (β : Type v) (γ : outParam (Type w)) where
  hAdd : α → β → γ

@[default_instance] instance instHAdd {α : Type u} [Add α] : HAdd α α α :=
  ⟨fun a b => Add.add a b⟩

/-- Addition (accelerated). -/
def Nat.add : Nat → Nat → Nat
  | n, .zero => n
  | n, .succ m => Nat.succ (Nat.add n m)

instance instAddNat : Add Nat := ⟨Nat.add⟩

/-- Multiplication (accelerated). -/
def Nat.mul : Nat → Nat → Nat
  | _, .zero => .zero
  | n, .succ m => Nat.add (Nat.mul n m) n

/-- Power, with `pow 0 0 = 1` (accelerated). -/
def Nat.pow : Nat → Nat → Nat
  | _, .zero => 1
  | n, .succ m => Nat.mul (Nat.pow n m) n

/-- `n ≤ m` (accelerated). -/
def Nat.ble : Nat → Nat → Bool
  | .zero, _ => true
  | .succ _, .zero => false
  | .succ n, .succ m => Nat.ble n m

/-- `n < m`. -/
def Nat.blt (n m : Nat) : Bool := Nat.ble (Nat.succ n) m

/-- Quotient loop; invariant `fuel ≥ x` and `y ≥ 1`, so fuel never runs out
while `y ≤ x`. -/
def Nat.divGo : Nat → Nat → Nat → Nat
  | .zero, _, _ => .zero
  | .succ fuel, x, y => cond (Nat.ble y x) (Nat.succ (Nat.divGo fuel (Nat.sub x y) y)) .zero

/-- Floor division, `div x 0 = 0` (accelerated). -/
def Nat.div (x y : Nat) : Nat := cond (Nat.isZero y) .zero (Nat.divGo x x y)

/-- Remainder loop; same invariant as `Nat.divGo`. -/
def Nat.modGo : Nat → Nat → Nat → Nat
  | .zero, x, _ => x
  | .succ fuel, x, y => cond (Nat.ble y x) (Nat.modGo fuel (Nat.sub x y) y) x

/-- Remainder, `mod x 0 = x` (accelerated). -/
def Nat.mod (x y : Nat) : Nat := cond (Nat.isZero y) x (Nat.modGo x x y)

/-- Euclid's loop on `(x, y)`; invariant `fuel > x` (`x` strictly decreases). -/
def Nat.gcdGo : Nat → Nat → Nat → Nat
  | .zero, _, y => y
  | .succ fuel, x, y => cond (Nat.isZero x) y (Nat.gcdGo fuel (Nat.mod y x) x)

/-- Greatest common divisor, `gcd 0 y = y`, `gcd x 0 = x` (accelerated). -/
def Nat.gcd (x y : Nat) : Nat := Nat.gcdGo (Nat.succ x) x y

/-- Bit-by-bit combination with `f` (requires `f false false = false`).
Invariant `fuel ≥ x + y`: a step runs only when `x, y ≥ 1` and then
`x/2 + y/2 < x + y`.  -/
def Nat.bitwiseGo (f : Bool → Bool → Bool) : Nat → Nat → Nat → Nat
  | .zero, _, _ => .zero
  | .succ fuel, x, y =>
    cond (Nat.isZero x) (cond (f false true) y .zero)
      (cond (Nat.isZero y) (cond (f true false) x .zero)
        (Nat.add (Nat.mul 2 (Nat.bitwiseGo f fuel (Nat.div x 2) (Nat.div y 2)))
          (cond (f (Nat.beq (Nat.mod x 2) 1) (Nat.beq (Nat.mod y 2) 1)) 1 0)))

/-- The zero tests are repeated outside the loop so that e.g. `Nat.lor 0 n`
reduces to `n` for an open `n`. -/
def Nat.bitwise (f : Bool → Bool → Bool) (x y : Nat) : Nat :=
  cond (Nat.isZero x) (cond (f false true) y .zero)
    (cond (Nat.isZero y) (cond (f true false) x .zero)
      (Nat.bitwiseGo f (Nat.add x y) x y))

/-- Bitwise and (accelerated). -/
def Nat.land (x y : Nat) : Nat := Nat.bitwise Bool.and x y
/-- Bitwise or (accelerated). -/
def Nat.lor (x y : Nat) : Nat := Nat.bitwise Bool.or x y
/-- Bitwise exclusive or (accelerated). -/
def Nat.xor (x y : Nat) : Nat := Nat.bitwise Bool.xor x y

/-- `shiftLeft m n = m * 2^n` (accelerated). -/
def Nat.shiftLeft : Nat → Nat → Nat
  | m, .zero => m
  | m, .succ n => Nat.shiftLeft (Nat.mul 2 m) n

/-- `shiftRight m n = m / 2^n` (accelerated). -/
def Nat.shiftRight : Nat → Nat → Nat
  | m, .zero => m
  | m, .succ n => Nat.div (Nat.shiftRight m n) 2

def Nat.max (n m : Nat) : Nat := cond (Nat.ble n m) m n
def Nat.min (n m : Nat) : Nat := cond (Nat.ble n m) n m

/-- Order on `Nat`, defined through the Boolean test. -/
def Nat.le (n m : Nat) : Prop := Eq (Nat.ble n m) true
def Nat.lt (n m : Nat) : Prop := Nat.le (Nat.succ n) m

instance Nat.decLe (n m : Nat) : Decidable (Nat.le n m) := Bool.decEq (Nat.ble n m) true
instance Nat.decLt (n m : Nat) : Decidable (Nat.lt n m) := Bool.decEq (Nat.ble (Nat.succ n) m) true

/-! ## Int

Integers as a natural number or the negative `-(n+1)`.  Division and
remainder follow Python (`//`, `%`): the quotient is rounded toward minus
infinity and the remainder has the sign of the divisor.  Python raises on
a zero divisor; here `fdiv x 0 = 0` and `fmod x 0 = x` (so
`x = 0 * fdiv x 0 + fmod x 0` still holds). Certificates must not rely on
these values. -/

-- The code generator knows `Int` specially; its auxiliary `Int.ctorElim`
-- would need `Int.decLt` & co. to exist already, so no `ctorIdx` here.
set_option genCtorIdx false in
inductive Int : Type
  | ofNat (n : Nat) : Int
  | negSucc (n : Nat) : Int

protected def Int.ctorIdx (i : Int) : Nat :=
  Int.rec (motive := fun _ => Nat) (fun _ => 0) (fun _ => 1) i

instance instOfNatInt (n : Nat) : OfNat Int n := ⟨Int.ofNat n⟩

/-- `-n` for a natural number `n`. -/
def Int.negOfNat : Nat → Int
  | .zero => .ofNat .zero
  | .succ n => .negSucc n

/-- `m - n` as an integer. -/
def Int.subNatNat (m n : Nat) : Int :=
  match Nat.sub n m with
  | .zero => .ofNat (Nat.sub m n)
  | .succ k => .negSucc k

def Int.neg : Int → Int
  | .ofNat n => Int.negOfNat n
  | .negSucc n => .ofNat (Nat.succ n)

def Int.add : Int → Int → Int
  | .ofNat m, .ofNat n => .ofNat (Nat.add m n)
  | .ofNat m, .negSucc n => Int.subNatNat m (Nat.succ n)
  | .negSucc m, .ofNat n => Int.subNatNat n (Nat.succ m)
  | .negSucc m, .negSucc n => .negSucc (Nat.succ (Nat.add m n))

def Int.sub (a b : Int) : Int := Int.add a (Int.neg b)

def Int.mul : Int → Int → Int
  | .ofNat m, .ofNat n => .ofNat (Nat.mul m n)
  | .ofNat m, .negSucc n => Int.negOfNat (Nat.mul m (Nat.succ n))
  | .negSucc m, .ofNat n => Int.negOfNat (Nat.mul (Nat.succ m) n)
  | .negSucc m, .negSucc n => .ofNat (Nat.mul (Nat.succ m) (Nat.succ n))

def Int.natAbs : Int → Nat
  | .ofNat n => n
  | .negSucc n => Nat.succ n

/-- `true` on `0, 1, 2, ...`. -/
def Int.isNonneg : Int → Bool
  | .ofNat _ => true
  | .negSucc _ => false

def Int.beq : Int → Int → Bool
  | .ofNat m, .ofNat n => Nat.beq m n
  | .negSucc m, .negSucc n => Nat.beq m n
  | _, _ => false

/-- `a < b`. -/
def Int.blt : Int → Int → Bool
  | .ofNat m, .ofNat n => Nat.blt m n
  | .ofNat _, .negSucc _ => false
  | .negSucc _, .ofNat _ => true
  | .negSucc m, .negSucc n => Nat.blt n m

/-- `a ≤ b`. -/
def Int.ble : Int → Int → Bool
  | .ofNat m, .ofNat n => Nat.ble m n
  | .ofNat _, .negSucc _ => false
  | .negSucc _, .ofNat _ => true
  | .negSucc m, .negSucc n => Nat.ble n m

/-- Python `a // b` (floor division); `fdiv a 0 = 0`. -/
def Int.fdiv : Int → Int → Int
  | .ofNat m, .ofNat n => .ofNat (Nat.div m n)
  | .ofNat .zero, .negSucc _ => .ofNat .zero
  | .ofNat (.succ m), .negSucc n => .negSucc (Nat.div m (Nat.succ n))
  | .negSucc _, .ofNat .zero => .ofNat .zero
  | .negSucc m, .ofNat (.succ n) => .negSucc (Nat.div m (Nat.succ n))
  | .negSucc m, .negSucc n => .ofNat (Nat.div (Nat.succ m) (Nat.succ n))

/-- Python `a % b` (sign of `b`); `fmod a 0 = a`. -/
def Int.fmod : Int → Int → Int
  | .ofNat m, .ofNat n => .ofNat (Nat.mod m n)
  | .ofNat .zero, .negSucc _ => .ofNat .zero
  | .ofNat (.succ m), .negSucc n => Int.subNatNat (Nat.mod m (Nat.succ n)) n
  | .negSucc m, .ofNat n => Int.subNatNat n (Nat.succ (Nat.mod m n))
  | .negSucc m, .negSucc n => Int.neg (.ofNat (Nat.mod (Nat.succ m) (Nat.succ n)))

theorem Int.ofNat.inj {m n : Nat} (h : Eq (Int.ofNat m) (Int.ofNat n)) : Eq m n :=
  congrArg Int.natAbs h

theorem Int.negSucc.inj {m n : Nat} (h : Eq (Int.negSucc m) (Int.negSucc n)) : Eq m n :=
  Nat.succ.inj (congrArg Int.natAbs h)

def Int.decEq (a b : Int) : Decidable (Eq a b) :=
  match a, b with
  | .ofNat m, .ofNat n =>
    match Nat.decEq m n with
    | .isTrue h => .isTrue (congrArg Int.ofNat h)
    | .isFalse h => .isFalse (fun e => h (Int.ofNat.inj e))
  | .negSucc m, .negSucc n =>
    match Nat.decEq m n with
    | .isTrue h => .isTrue (congrArg Int.negSucc h)
    | .isFalse h => .isFalse (fun e => h (Int.negSucc.inj e))
  | .ofNat _, .negSucc _ => .isFalse (fun e => Bool.true_ne_false (congrArg Int.isNonneg e))
  | .negSucc _, .ofNat _ => .isFalse (fun e => Bool.false_ne_true (congrArg Int.isNonneg e))

instance instDecidableEqInt : DecidableEq Int := Int.decEq

/-- Order on `Int`, through the Boolean tests. -/
def Int.le (a b : Int) : Prop := Eq (Int.ble a b) true
def Int.lt (a b : Int) : Prop := Eq (Int.blt a b) true

instance Int.decLe (a b : Int) : Decidable (Int.le a b) := Bool.decEq (Int.ble a b) true
instance Int.decLt (a b : Int) : Decidable (Int.lt a b) := Bool.decEq (Int.blt a b) true

/-! ## Option -/

inductive Option (α : Type u) : Type u
  | none : Option α
  | some (val : α) : Option α

def Option.getD {α : Type u} : Option α → α → α
  | .none, d => d
  | .some a, _ => a

def Option.isSome {α : Type u} : Option α → Bool
  | .none => false
  | .some _ => true

def Option.map {α : Type u} {β : Type v} (f : α → β) : Option α → Option β
  | .none => .none
  | .some a => .some (f a)

/-! ## List -/

inductive List (α : Type u) : Type u
  | nil : List α
  | cons (head : α) (tail : List α) : List α

def List.length {α : Type u} : List α → Nat
  | .nil => 0
  | .cons _ as => Nat.succ (List.length as)

def List.append {α : Type u} : List α → List α → List α
  | .nil, bs => bs
  | .cons a as, bs => .cons a (List.append as bs)

def List.map {α : Type u} {β : Type v} (f : α → β) : List α → List β
  | .nil => .nil
  | .cons a as => .cons (f a) (List.map f as)

def List.foldl {α : Type u} {β : Type v} (f : β → α → β) : β → List α → β
  | acc, .nil => acc
  | acc, .cons a as => List.foldl f (f acc a) as

def List.foldr {α : Type u} {β : Type v} (f : α → β → β) (init : β) : List α → β
  | .nil => init
  | .cons a as => f a (List.foldr f init as)

def List.all {α : Type u} (p : α → Bool) : List α → Bool
  | .nil => true
  | .cons a as => Bool.and (p a) (List.all p as)

def List.any {α : Type u} (p : α → Bool) : List α → Bool
  | .nil => false
  | .cons a as => Bool.or (p a) (List.any p as)

def List.reverse {α : Type u} (l : List α) : List α :=
  List.foldl (fun acc a => .cons a acc) .nil l

/-- Element-wise equality test with a user-supplied element test. -/
def List.beqBy {α : Type u} (f : α → α → Bool) : List α → List α → Bool
  | .nil, .nil => true
  | .cons a as, .cons b bs => Bool.and (f a b) (List.beqBy f as bs)
  | _, _ => false

def List.isEmpty {α : Type u} : List α → Bool
  | .nil => true
  | .cons _ _ => false

def List.headD {α : Type u} : List α → α → α
  | .nil, d => d
  | .cons a _, _ => a

def List.tail {α : Type u} : List α → List α
  | .nil => .nil
  | .cons _ as => as

def List.decEqBy {α : Type u} (d : (a b : α) → Decidable (Eq a b)) :
    (l₁ l₂ : List α) → Decidable (Eq l₁ l₂)
  | .nil, .nil => .isTrue (Eq.refl List.nil)
  | .nil, .cons _ _ => .isFalse (fun e => Bool.true_ne_false (congrArg List.isEmpty e))
  | .cons _ _, .nil => .isFalse (fun e => Bool.false_ne_true (congrArg List.isEmpty e))
  | .cons a as, .cons b bs =>
    match d a b with
    | .isFalse h => .isFalse (fun e => h (congrArg (fun l => List.headD l a) e))
    | .isTrue h =>
      match List.decEqBy d as bs with
      | .isFalse h' => .isFalse (fun e => h' (congrArg List.tail e))
      | .isTrue h' => .isTrue (Eq.ndrec (motive := fun x => Eq (List.cons a as) (List.cons x bs))
          (congrArg (List.cons a) h') h)

instance instDecidableEqList {α : Type u} [inst : DecidableEq α] : DecidableEq (List α) :=
  List.decEqBy inst

/-! ## Char and String

Literals: the elaborator turns `'c'` into `Char.ofNat <code>` and the
kernel unfolds `"s"` to `String.ofList [Char.ofNat ...]`.  A `Char` is just
a Unicode code point; no validity invariant is carried. -/

structure Char where
  val : Nat

def Char.ofNat (n : Nat) : Char := ⟨n⟩

def Char.beq (a b : Char) : Bool := Nat.beq a.val b.val

def Char.decEq (a b : Char) : Decidable (Eq a b) :=
  match a, b with
  | ⟨x⟩, ⟨y⟩ =>
    match Nat.decEq x y with
    | .isTrue h => .isTrue (congrArg Char.mk h)
    | .isFalse h => .isFalse (fun e => h (congrArg Char.val e))

instance instDecidableEqChar : DecidableEq Char := Char.decEq

structure String where
  ofList ::
  data : List Char

def String.length (s : String) : Nat := List.length s.data

def String.beq (a b : String) : Bool := List.beqBy Char.beq a.data b.data

def String.append (a b : String) : String := ⟨List.append a.data b.data⟩

def String.decEq (a b : String) : Decidable (Eq a b) :=
  match a, b with
  | ⟨x⟩, ⟨y⟩ =>
    match List.decEqBy Char.decEq x y with
    | .isTrue h => .isTrue (congrArg String.ofList h)
    | .isFalse h => .isFalse (fun e => h (congrArg String.data e))

instance instDecidableEqString : DecidableEq String := String.decEq

end
