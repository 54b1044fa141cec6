prelude
import SpecGuard.Core

/-!
# SpecGuard.Value: Python values, outcomes of calls, and the predicates tests use

An implementation under test is modelled as `impl : Val → Outcome`: it maps the
*exact* input (the argument tuple, every distinction a function could observe
kept) to an outcome: it returns the `==`-class of a plain Python value, or it
raises.  Classes are written as their canonical representatives (computed by
SpecGuard's `values.canon`): `True`, `1` and `1.0` are all `Val.int 1`; a
non-integral float is `Val.rat num den` in lowest terms; dict entries and set
elements are sorted.  Values outside these canonical forms are harmless junk:
they only give the model *more* implementations, never fewer.

Every predicate is `Bool`-valued so the kernel decides it by evaluation on
concrete values; proofs are built from the lemmas at the end of this file.
-/

noncomputable section

namespace SpecGuard

inductive Val where
  | none : Val
  | bool : Bool → Val
  | int : Int → Val
  /-- exact float input: the IEEE-754 binary64 bit pattern -/
  | float : Nat → Val
  /-- class of a non-integral finite float: `num / den`, lowest terms, `den` a power of 2 -/
  | rat : Int → Nat → Val
  /-- class of an infinite float (`true` = negative) -/
  | inf : Bool → Val
  | nan : Val
  | str : String → Val
  /-- bytes: one char per byte, codes 0..255 -/
  | bytes : String → Val
  /-- sequences (list, tuple, dict entries, set elements) are balanced trees of
  `nil`, `one x` and `cat a b`; SpecGuard always splits at the midpoint, so equal
  sequences have identical trees -/
  | nil : Val
  | one : Val → Val
  | cat : Val → Val → Val
  | pair : Val → Val → Val
  | list : Val → Val
  | tuple : Val → Val
  | dict : Val → Val
  | set : Val → Val
  | frozenset : Val → Val

inductive Outcome where
  | ret : Val → Outcome
  | raise : String → Outcome

def boolEq : Bool → Bool → Bool
  | Bool.true, Bool.true => Bool.true
  | Bool.false, Bool.false => Bool.true
  | _, _ => Bool.false

/-! `Val.beq` is written with `Val.rec` directly (not the equation compiler): the
kernel then evaluates it with plain iota steps, with no `brecOn` tuples and no
17×17-case matcher, which makes comparing large values ~10× faster. -/

def Val.isNone : Val → Bool
  | Val.none => Bool.true
  | _ => Bool.false

def Val.isNan : Val → Bool
  | Val.nan => Bool.true
  | _ => Bool.false

def Val.isNil : Val → Bool
  | Val.nil => Bool.true
  | _ => Bool.false

def Val.bool? : Val → Option Bool
  | Val.bool b => Option.some b
  | _ => Option.none

def Val.int? : Val → Option Int
  | Val.int i => Option.some i
  | _ => Option.none

def Val.float? : Val → Option Nat
  | Val.float n => Option.some n
  | _ => Option.none

def Val.inf? : Val → Option Bool
  | Val.inf b => Option.some b
  | _ => Option.none

def Val.str? : Val → Option String
  | Val.str s => Option.some s
  | _ => Option.none

def Val.bytes? : Val → Option String
  | Val.bytes s => Option.some s
  | _ => Option.none

/-- Compare an optional payload with a given one. -/
def optEq {α : Type} (eq : α → α → Bool) (x : α) : Option α → Bool
  | Option.some y => eq x y
  | Option.none => Bool.false

/-- Structural equality of representatives (on canonical classes: Python's `==`). -/
def Val.beq (a : Val) : Val → Bool :=
  Val.rec (motive := fun _ => Val → Bool)
    (fun b => Val.isNone b)
    (fun x b => optEq boolEq x (Val.bool? b))
    (fun x b => optEq Int.beq x (Val.int? b))
    (fun x b => optEq Nat.beq x (Val.float? b))
    (fun n d b => match b with
      | Val.rat n' d' => Bool.and (Int.beq n n') (Nat.beq d d')
      | _ => Bool.false)
    (fun x b => optEq boolEq x (Val.inf? b))
    (fun b => Val.isNan b)
    (fun x b => optEq String.beq x (Val.str? b))
    (fun x b => optEq String.beq x (Val.bytes? b))
    (fun b => Val.isNil b)
    (fun _ ih b => match b with
      | Val.one y => ih y
      | _ => Bool.false)
    (fun _ _ ih1 ih2 b => match b with
      | Val.cat y z => Bool.and (ih1 y) (ih2 z)
      | _ => Bool.false)
    (fun _ _ ih1 ih2 b => match b with
      | Val.pair y z => Bool.and (ih1 y) (ih2 z)
      | _ => Bool.false)
    (fun _ ih b => match b with
      | Val.list y => ih y
      | _ => Bool.false)
    (fun _ ih b => match b with
      | Val.tuple y => ih y
      | _ => Bool.false)
    (fun _ ih b => match b with
      | Val.dict y => ih y
      | _ => Bool.false)
    (fun _ ih b => match b with
      | Val.set y => ih y
      | _ => Bool.false)
    (fun _ ih b => match b with
      | Val.frozenset y => ih y
      | _ => Bool.false)
    a

def Outcome.beq : Outcome → Outcome → Bool
  | Outcome.ret a, Outcome.ret b => Val.beq a b
  | Outcome.raise a, Outcome.raise b => String.beq a b
  | _, _ => Bool.false

/-! ## Predicates on classes -/

/-- Number of elements of a sequence tree. -/
def Val.cells : Val → Nat
  | Val.one _ => 1
  | Val.cat a b => Nat.add (Val.cells a) (Val.cells b)
  | _ => 0

/-- Every element of a sequence tree satisfies `p`. -/
def Val.allElems (p : Val → Bool) : Val → Bool
  | Val.nil => Bool.true
  | Val.one x => p x
  | Val.cat a b => Bool.and (Val.allElems p a) (Val.allElems p b)
  | _ => Bool.false

/-- Every entry `pair k v` of a sequence tree has `p k` and `q v`. -/
def Val.allPairs (p q : Val → Bool) : Val → Bool
  | Val.nil => Bool.true
  | Val.one (Val.pair k v) => Bool.and (p k) (q v)
  | Val.cat a b => Bool.and (Val.allPairs p q a) (Val.allPairs p q b)
  | _ => Bool.false

/-- `len(v)` when defined, encoded as `len + 1`; `0` when `len` raises. -/
def Val.len1 : Val → Nat
  | Val.str s => Nat.add (String.length s) 1
  | Val.bytes s => Nat.add (String.length s) 1
  | Val.list xs => Nat.add (Val.cells xs) 1
  | Val.tuple xs => Nat.add (Val.cells xs) 1
  | Val.dict xs => Nat.add (Val.cells xs) 1
  | Val.set xs => Nat.add (Val.cells xs) 1
  | _ => 0

/-- Python truthiness of a class. -/
def Val.truthy : Val → Bool
  | Val.none => Bool.false
  | Val.bool b => b
  | Val.int i => Bool.not (Int.beq i (Int.ofNat 0))
  | Val.rat _ _ => Bool.true
  | Val.inf _ => Bool.true
  | Val.nan => Bool.true
  | Val.str s => Bool.not (Nat.beq (String.length s) 0)
  | Val.bytes s => Bool.not (Nat.beq (String.length s) 0)
  | Val.list xs => Bool.not (Nat.beq (Val.cells xs) 0)
  | Val.tuple xs => Bool.not (Nat.beq (Val.cells xs) 0)
  | Val.dict xs => Bool.not (Nat.beq (Val.cells xs) 0)
  | Val.set xs => Bool.not (Nat.beq (Val.cells xs) 0)
  | _ => Bool.false

/-- A numeric class as a fraction `num / den` (den > 0), or `none` for non-numbers and infinities. -/
def Val.frac : Val → Option (Prod Int Nat)
  | Val.int i => Option.some (Prod.mk i 1)
  | Val.rat n d => Option.some (Prod.mk n d)
  | _ => Option.none

/-- Order code of two numeric classes: 0 less, 1 equal, 2 greater, 3 not comparable
(a non-number, or NaN: Python's `<` is then False or raises). -/
def Val.numOrder (a b : Val) : Nat :=
  match a, b with
  | Val.inf x, Val.inf y => cond (boolEq x y) 1 (cond x 0 2)
  | Val.inf x, Val.int _ => cond x 0 2
  | Val.inf x, Val.rat _ _ => cond x 0 2
  | Val.int _, Val.inf y => cond y 2 0
  | Val.rat _ _, Val.inf y => cond y 2 0
  | _, _ =>
    match Val.frac a, Val.frac b with
    | Option.some (Prod.mk n1 d1), Option.some (Prod.mk n2 d2) =>
      let l := Int.mul n1 (Int.ofNat d2)
      let r := Int.mul n2 (Int.ofNat d1)
      cond (Int.blt l r) 0 (cond (Int.beq l r) 1 2)
    | _, _ => 3

/-- `a op b` for op codes 0 `<`, 1 `<=`, 2 `>`, 3 `>=`. -/
def Val.cmp (op : Nat) (a b : Val) : Bool :=
  match Val.numOrder a b with
  | 0 => Bool.or (Nat.beq op 0) (Nat.beq op 1)
  | 1 => Bool.or (Nat.beq op 1) (Nat.beq op 3)
  | 2 => Bool.or (Nat.beq op 2) (Nat.beq op 3)
  | _ => Bool.false

def Val.memB (v : Val) : List Val → Bool
  | List.nil => Bool.false
  | List.cons x xs => Bool.or (Val.beq v x) (Val.memB v xs)

/-- Integer class within `[lo, hi]` (bounds optional). -/
def Val.intIn (lo hi : Option Int) : Val → Bool
  | Val.int i =>
    Bool.and (match lo with | Option.some l => Int.ble l i | Option.none => Bool.true)
             (match hi with | Option.some h => Int.ble i h | Option.none => Bool.true)
  | _ => Bool.false

/-! ## Types (return annotations, `isinstance`) -/

inductive Ty where
  | any : Ty
  | none : Ty
  | int : Ty
  /-- `float` accepts int too (PEP 484 numeric tower), and every float class -/
  | float : Ty
  | bool : Ty
  | str : Ty
  | bytes : Ty
  | list : Ty → Ty
  /-- `tuple[t, ...]`; fixed-length tuple types are modelled as `tupleOf any` -/
  | tupleOf : Ty → Ty
  | dict : Ty → Ty → Ty
  | set : Ty → Ty
  | union : Ty → Ty → Ty

/-- Values of the class have the type (`isinstance`-like, on `==`-classes). -/
def Ty.has : Ty → Val → Bool
  | Ty.any, _ => Bool.true
  | Ty.none, Val.none => Bool.true
  | Ty.int, Val.int _ => Bool.true
  | Ty.float, Val.int _ => Bool.true
  | Ty.float, Val.rat _ _ => Bool.true
  | Ty.float, Val.inf _ => Bool.true
  | Ty.float, Val.nan => Bool.true
  | Ty.bool, Val.int i => Bool.or (Int.beq i (Int.ofNat 0)) (Int.beq i (Int.ofNat 1))
  | Ty.str, Val.str _ => Bool.true
  | Ty.bytes, Val.bytes _ => Bool.true
  | Ty.list t, Val.list xs => Val.allElems (Ty.has t) xs
  | Ty.tupleOf t, Val.tuple xs => Val.allElems (Ty.has t) xs
  | Ty.dict k v, Val.dict xs => Val.allPairs (Ty.has k) (Ty.has v) xs
  | Ty.set t, Val.set xs => Val.allElems (Ty.has t) xs
  | Ty.union a b, v => Bool.or (Ty.has a v) (Ty.has b v)
  | _, _ => Bool.false

/-! ## Predicates on outcomes -/

/-- The call returns (does not raise) and its class satisfies `p`. -/
def Outcome.returns (p : Val → Bool) : Outcome → Bool
  | Outcome.ret v => p v
  | Outcome.raise _ => Bool.false

/-- If the call returns, its class satisfies `p` (raising is allowed). -/
def Outcome.ifReturns (p : Val → Bool) : Outcome → Bool
  | Outcome.ret v => p v
  | Outcome.raise _ => Bool.true

/-- The call raises (some exception; its class is not constrained). -/
def Outcome.raises : Outcome → Bool
  | Outcome.ret _ => Bool.false
  | Outcome.raise _ => Bool.true

/-- A demand or clause `P` holds of an outcome. -/
abbrev Holds (P : Outcome → Bool) (o : Outcome) : Prop := Eq (P o) Bool.true

/-! ## Lookup tables (witness implementations) -/

def lookup (table : List (Prod Val Outcome)) (dflt : Outcome) (k : Val) : Outcome :=
  match table with
  | List.nil => dflt
  | List.cons (Prod.mk k' o) rest => cond (Val.beq k k') o (lookup rest dflt k)

def allHold (P : Outcome → Bool) : List (Prod Val Outcome) → Bool
  | List.nil => Bool.true
  | List.cons (Prod.mk _ o) rest => Bool.and (P o) (allHold P rest)

/-! ## Lemmas proofs are built from -/

theorem eq_true_of_and_left {a b : Bool} (h : Eq (Bool.and a b) Bool.true) : Eq a Bool.true :=
  Bool.rec (motive := fun x => Eq (Bool.and x b) Bool.true → Eq x Bool.true)
    (fun h' => False.elim (Bool.false_ne_true h')) (fun _ => Eq.refl Bool.true) a h

theorem eq_true_of_and_right {a b : Bool} (h : Eq (Bool.and a b) Bool.true) : Eq b Bool.true :=
  Bool.rec (motive := fun x => Eq (Bool.and x b) Bool.true → Eq b Bool.true)
    (fun h' => False.elim (Bool.false_ne_true h')) (fun h' => h') a h

/-- Two demands `impl k = ret c1` and `impl k = ret c2` with distinct classes: `c1` must equal `c2`. -/
theorem same_outcome {o a b : Outcome} (h1 : Eq o a) (h2 : Eq o b) : Eq a b :=
  Eq.trans (Eq.symm h1) h2

/-! ## Reflexivity of `beq` (so proofs never re-evaluate a comparison of a value with itself) -/

theorem boolEq_refl (b : Bool) : Eq (boolEq b b) Bool.true :=
  Bool.rec (motive := fun b => Eq (boolEq b b) Bool.true) (Eq.refl Bool.true) (Eq.refl Bool.true) b

theorem Int.beq_refl (i : Int) : Eq (Int.beq i i) Bool.true :=
  Int.rec (motive := fun i => Eq (Int.beq i i) Bool.true) (fun n => Nat.beq_refl n) (fun n => Nat.beq_refl n) i

/-- `Bool.and x y = true` from `x = true` and `y = true`. -/
theorem and_true_of {x y : Bool} (hx : Eq x Bool.true) (hy : Eq y Bool.true) : Eq (Bool.and x y) Bool.true :=
  @Eq.ndrec Bool Bool.true (fun z => Eq (Bool.and z y) Bool.true) hy x (Eq.symm hx)

theorem List.beqBy_refl {α : Type} (f : α → α → Bool) (hf : ∀ a, Eq (f a a) Bool.true) (l : List α) :
    Eq (List.beqBy f l l) Bool.true :=
  List.rec (motive := fun l => Eq (List.beqBy f l l) Bool.true) (Eq.refl Bool.true)
    (fun a _ ih => and_true_of (hf a) ih) l

theorem String.beq_refl (s : String) : Eq (String.beq s s) Bool.true :=
  List.beqBy_refl Char.beq (fun c => Nat.beq_refl c.val) s.data

theorem Val.beq_refl (v : Val) : Eq (Val.beq v v) Bool.true :=
  Val.rec (motive := fun v => Eq (Val.beq v v) Bool.true)
    (Eq.refl Bool.true)
    (fun x => boolEq_refl x)
    (fun x => Int.beq_refl x)
    (fun x => Nat.beq_refl x)
    (fun n d => and_true_of (Int.beq_refl n) (Nat.beq_refl d))
    (fun x => boolEq_refl x)
    (Eq.refl Bool.true)
    (fun x => String.beq_refl x)
    (fun x => String.beq_refl x)
    (Eq.refl Bool.true)
    (fun _ ih => ih)
    (fun _ _ ih1 ih2 => and_true_of ih1 ih2)
    (fun _ _ ih1 ih2 => and_true_of ih1 ih2)
    (fun _ ih => ih)
    (fun _ ih => ih)
    (fun _ ih => ih)
    (fun _ ih => ih)
    (fun _ ih => ih)
    v

theorem Outcome.beq_refl (o : Outcome) : Eq (Outcome.beq o o) Bool.true :=
  Outcome.rec (motive := fun o => Eq (Outcome.beq o o) Bool.true)
    (fun v => Val.beq_refl v) (fun s => String.beq_refl s) o

/-- Outcomes that `Outcome.beq` tells apart are different. -/
theorem outcome_ne {a b : Outcome} (e : Eq a b) (h : Eq (Outcome.beq a b) Bool.false) : False :=
  Bool.false_ne_true (Eq.trans (Eq.symm h)
    (Eq.ndrec (motive := fun x => Eq (Outcome.beq x b) Bool.true) (Outcome.beq_refl b) (Eq.symm e)))

theorem lookup_hit (k : Val) (o dflt : Outcome) (rest : List (Prod Val Outcome)) :
    Eq (lookup (List.cons (Prod.mk k o) rest) dflt k) o :=
  show Eq (cond (Val.beq k k) o (lookup rest dflt k)) o from
  @Eq.ndrec Bool Bool.true (fun b => Eq (cond b o (lookup rest dflt k)) o) (Eq.refl o) (Val.beq k k)
    (Eq.symm (Val.beq_refl k))

theorem lookup_miss (k k' : Val) (o dflt : Outcome) (rest : List (Prod Val Outcome))
    (h : Eq (Val.beq k k') Bool.false) :
    Eq (lookup (List.cons (Prod.mk k' o) rest) dflt k) (lookup rest dflt k) :=
  show Eq (cond (Val.beq k k') o (lookup rest dflt k)) (lookup rest dflt k) from
  @Eq.ndrec Bool Bool.false (fun b => Eq (cond b o (lookup rest dflt k)) (lookup rest dflt k))
    (Eq.refl (lookup rest dflt k)) (Val.beq k k') (Eq.symm h)

/-- Transport a predicate along an equation of outcomes. -/
theorem holds_of_eq {P : Outcome → Bool} {o c : Outcome} (h : Eq o c) (hp : Holds P o) : Holds P c :=
  Eq.ndrec (motive := fun x => Holds P x) hp h

theorem holds_of_eq' {P : Outcome → Bool} {o c : Outcome} (h : Eq o c) (hp : Holds P c) : Holds P o :=
  Eq.ndrec (motive := fun x => Holds P x) hp (Eq.symm h)

/-- An outcome equal to `c` cannot satisfy `P` when `P c` evaluates to false. -/
theorem not_holds {P : Outcome → Bool} {o c : Outcome} (hp : Holds P o) (h : Eq o c)
    (hf : Eq (P c) Bool.false) : False :=
  Bool.false_ne_true (Eq.trans (Eq.symm hf) (holds_of_eq h hp))

/-- Every outcome of a lookup table satisfies `P` when every entry and the default do. -/
theorem lookup_holds (P : Outcome → Bool) (dflt : Outcome) (hd : Holds P dflt) (k : Val) :
    (table : List (Prod Val Outcome)) → Eq (allHold P table) Bool.true → Holds P (lookup table dflt k)
  | List.nil, _ => hd
  | List.cons (Prod.mk k' o) rest, h =>
    have ho : Holds P o := eq_true_of_and_left h
    have hr : Holds P (lookup rest dflt k) := lookup_holds P dflt hd k rest (eq_true_of_and_right h)
    show Holds P (cond (Val.beq k k') o (lookup rest dflt k)) from
    Bool.rec (motive := fun b => Holds P (cond b o (lookup rest dflt k))) hr ho (Val.beq k k')

/-! ## Indexed witness tables

A witness table with many entries is a balanced search tree of its inputs (`KTree`, ordered by
`Val.order`, giving each input its index) and a balanced tree of outcomes by index (`NTree`).  A
proof that the witness maps input `k` to `o` evaluates about `log n` comparisons, not `n`.
`Val.order` need not mean anything: every step of a lookup is evaluated by the kernel. -/

/-- The constructor's position in `Val`. -/
def Val.tag : Val → Nat
  | Val.none => 0
  | Val.bool _ => 1
  | Val.int _ => 2
  | Val.float _ => 3
  | Val.rat _ _ => 4
  | Val.inf _ => 5
  | Val.nan => 6
  | Val.str _ => 7
  | Val.bytes _ => 8
  | Val.nil => 9
  | Val.one _ => 10
  | Val.cat _ _ => 11
  | Val.pair _ _ => 12
  | Val.list _ => 13
  | Val.tuple _ => 14
  | Val.dict _ => 15
  | Val.set _ => 16
  | Val.frozenset _ => 17

/-- Three-way comparison: 0 less, 1 equal, 2 greater. -/
def Nat.cmp3 (a b : Nat) : Nat := cond (Nat.beq a b) 1 (cond (Nat.blt a b) 0 2)

/-- `c`, unless it says equal: then `d` (lexicographic order). -/
def lex3 (c d : Nat) : Nat := cond (Nat.beq c 1) d c

def Bool.toNat (b : Bool) : Nat := cond b 1 0

def Int.cmp3 (a b : Int) : Nat := cond (Int.beq a b) 1 (cond (Int.blt a b) 0 2)

def List.cmpChars : List Char → List Char → Nat
  | List.nil, List.nil => 1
  | List.nil, List.cons _ _ => 0
  | List.cons _ _, List.nil => 2
  | List.cons x xs, List.cons y ys => lex3 (Nat.cmp3 x.val y.val) (List.cmpChars xs ys)

def String.cmp3 (a b : String) : Nat := List.cmpChars a.data b.data

/-- A total order on values, by constructor, then arguments left to right. -/
def Val.order (a : Val) : Val → Nat :=
  Val.rec (motive := fun _ => Val → Nat)
    (fun b => Nat.cmp3 0 (Val.tag b))
    (fun x b => match b with
      | Val.bool y => Nat.cmp3 (Bool.toNat x) (Bool.toNat y)
      | _ => Nat.cmp3 1 (Val.tag b))
    (fun x b => match b with
      | Val.int y => Int.cmp3 x y
      | _ => Nat.cmp3 2 (Val.tag b))
    (fun x b => match b with
      | Val.float y => Nat.cmp3 x y
      | _ => Nat.cmp3 3 (Val.tag b))
    (fun n d b => match b with
      | Val.rat n' d' => lex3 (Int.cmp3 n n') (Nat.cmp3 d d')
      | _ => Nat.cmp3 4 (Val.tag b))
    (fun x b => match b with
      | Val.inf y => Nat.cmp3 (Bool.toNat x) (Bool.toNat y)
      | _ => Nat.cmp3 5 (Val.tag b))
    (fun b => Nat.cmp3 6 (Val.tag b))
    (fun x b => match b with
      | Val.str y => String.cmp3 x y
      | _ => Nat.cmp3 7 (Val.tag b))
    (fun x b => match b with
      | Val.bytes y => String.cmp3 x y
      | _ => Nat.cmp3 8 (Val.tag b))
    (fun b => Nat.cmp3 9 (Val.tag b))
    (fun _ ih b => match b with
      | Val.one y => ih y
      | _ => Nat.cmp3 10 (Val.tag b))
    (fun _ _ ih1 ih2 b => match b with
      | Val.cat y z => lex3 (ih1 y) (ih2 z)
      | _ => Nat.cmp3 11 (Val.tag b))
    (fun _ _ ih1 ih2 b => match b with
      | Val.pair y z => lex3 (ih1 y) (ih2 z)
      | _ => Nat.cmp3 12 (Val.tag b))
    (fun _ ih b => match b with
      | Val.list y => ih y
      | _ => Nat.cmp3 13 (Val.tag b))
    (fun _ ih b => match b with
      | Val.tuple y => ih y
      | _ => Nat.cmp3 14 (Val.tag b))
    (fun _ ih b => match b with
      | Val.dict y => ih y
      | _ => Nat.cmp3 15 (Val.tag b))
    (fun _ ih b => match b with
      | Val.set y => ih y
      | _ => Nat.cmp3 16 (Val.tag b))
    (fun _ ih b => match b with
      | Val.frozenset y => ih y
      | _ => Nat.cmp3 17 (Val.tag b))
    a

/-- A search tree of inputs, each with its index. -/
inductive KTree where
  | leaf : KTree
  | node : KTree → Val → Nat → KTree → KTree

/-- The index of `k` in `t`, or `miss`. -/
def KTree.find (k : Val) (miss : Nat) (t : KTree) : Nat :=
  KTree.rec (motive := fun _ => Nat) miss
    (fun _ k' i _ ihl ihr => cond (Nat.beq (Val.order k k') 0) ihl (cond (Nat.beq (Val.order k k') 2) ihr i)) t

/-! Reflexivity of `Val.order`, so that finding an input in the tree never compares it with
itself, and one lemma per step of a search. -/

theorem Nat.cmp3_refl (n : Nat) : Eq (Nat.cmp3 n n) 1 :=
  @Eq.ndrec Bool Bool.true (fun b => Eq (cond b 1 (cond (Nat.blt n n) 0 2)) 1) (Eq.refl 1) (Nat.beq n n)
    (Eq.symm (Nat.beq_refl n))

theorem Int.cmp3_refl (i : Int) : Eq (Int.cmp3 i i) 1 :=
  @Eq.ndrec Bool Bool.true (fun b => Eq (cond b 1 (cond (Int.blt i i) 0 2)) 1) (Eq.refl 1) (Int.beq i i)
    (Eq.symm (Int.beq_refl i))

theorem lex3_one {c d : Nat} (h : Eq c 1) (hd : Eq d 1) : Eq (lex3 c d) 1 :=
  @Eq.ndrec Nat 1 (fun x => Eq (lex3 x d) 1) hd c (Eq.symm h)

theorem List.cmpChars_refl (l : List Char) : Eq (List.cmpChars l l) 1 :=
  List.rec (motive := fun l => Eq (List.cmpChars l l) 1) (Eq.refl 1)
    (fun x _ ih => lex3_one (Nat.cmp3_refl x.val) ih) l

theorem Val.order_refl (v : Val) : Eq (Val.order v v) 1 :=
  Val.rec (motive := fun v => Eq (Val.order v v) 1)
    (Eq.refl 1)
    (fun x => Nat.cmp3_refl (Bool.toNat x))
    (fun x => Int.cmp3_refl x)
    (fun x => Nat.cmp3_refl x)
    (fun n d => lex3_one (Int.cmp3_refl n) (Nat.cmp3_refl d))
    (fun x => Nat.cmp3_refl (Bool.toNat x))
    (Eq.refl 1)
    (fun x => List.cmpChars_refl x.data)
    (fun x => List.cmpChars_refl x.data)
    (Eq.refl 1)
    (fun _ ih => ih)
    (fun _ _ ih1 ih2 => lex3_one ih1 ih2)
    (fun _ _ ih1 ih2 => lex3_one ih1 ih2)
    (fun _ ih => ih)
    (fun _ ih => ih)
    (fun _ ih => ih)
    (fun _ ih => ih)
    (fun _ ih => ih)
    v

theorem ktree_lt (k k' : Val) (miss i : Nat) (l r : KTree) (h : Eq (Val.order k k') 0) :
    Eq (KTree.find k miss (KTree.node l k' i r)) (KTree.find k miss l) :=
  @Eq.ndrec Nat 0 (fun x => Eq (cond (Nat.beq x 0) (KTree.find k miss l)
      (cond (Nat.beq x 2) (KTree.find k miss r) i)) (KTree.find k miss l))
    (Eq.refl (KTree.find k miss l)) (Val.order k k') (Eq.symm h)

theorem ktree_gt (k k' : Val) (miss i : Nat) (l r : KTree) (h : Eq (Val.order k k') 2) :
    Eq (KTree.find k miss (KTree.node l k' i r)) (KTree.find k miss r) :=
  @Eq.ndrec Nat 2 (fun x => Eq (cond (Nat.beq x 0) (KTree.find k miss l)
      (cond (Nat.beq x 2) (KTree.find k miss r) i)) (KTree.find k miss r))
    (Eq.refl (KTree.find k miss r)) (Val.order k k') (Eq.symm h)

theorem ktree_hit (k : Val) (miss i : Nat) (l r : KTree) : Eq (KTree.find k miss (KTree.node l k i r)) i :=
  @Eq.ndrec Nat 1 (fun x => Eq (cond (Nat.beq x 0) (KTree.find k miss l)
      (cond (Nat.beq x 2) (KTree.find k miss r) i)) i)
    (Eq.refl i) (Val.order k k) (Eq.symm (Val.order_refl k))

/-- A search tree of outcomes by index. -/
inductive NTree where
  | leaf : NTree
  | node : NTree → Nat → Outcome → NTree → NTree

def NTree.find (d : Outcome) (n : Nat) (t : NTree) : Outcome :=
  NTree.rec (motive := fun _ => Outcome) d
    (fun _ m o _ ihl ihr => cond (Nat.blt n m) ihl (cond (Nat.blt m n) ihr o)) t

def NTree.all (P : Outcome → Bool) (t : NTree) : Bool :=
  NTree.rec (motive := fun _ => Bool) Bool.true
    (fun _ _ o _ ihl ihr => Bool.and (P o) (Bool.and ihl ihr)) t

/-- The witness of an indexed table: the outcome at the input's index, `d` off the table. -/
def ilookup (keys : KTree) (miss : Nat) (outs : NTree) (d : Outcome) (k : Val) : Outcome :=
  NTree.find d (KTree.find k miss keys) outs

theorem ilookup_at (keys : KTree) (miss : Nat) (outs : NTree) (d : Outcome) (k : Val) (i : Nat) (o : Outcome)
    (hi : Eq (KTree.find k miss keys) i) (ho : Eq (NTree.find d i outs) o) : Eq (ilookup keys miss outs d k) o :=
  @Eq.ndrec Nat i (fun m => Eq (NTree.find d m outs) o) ho (KTree.find k miss keys) (Eq.symm hi)

theorem cond_holds (P : Outcome → Bool) (b : Bool) (x y : Outcome) (hx : Holds P x) (hy : Holds P y) :
    Holds P (cond b x y) :=
  Bool.rec (motive := fun c => Holds P (cond c x y)) hy hx b

/-- Every outcome of an indexed table satisfies `P` when every entry and the default do. -/
theorem ntree_holds (P : Outcome → Bool) (d : Outcome) (hd : Holds P d) (n : Nat) (t : NTree) :
    Eq (NTree.all P t) Bool.true → Holds P (NTree.find d n t) :=
  NTree.rec (motive := fun t => Eq (NTree.all P t) Bool.true → Holds P (NTree.find d n t))
    (fun _ => hd)
    (fun l m o r ihl ihr h =>
      have ho : Holds P o := eq_true_of_and_left h
      have hl : Holds P (NTree.find d n l) := ihl (eq_true_of_and_left (eq_true_of_and_right h))
      have hr : Holds P (NTree.find d n r) := ihr (eq_true_of_and_right (eq_true_of_and_right h))
      cond_holds P (Nat.blt n m) _ _ hl (cond_holds P (Nat.blt m n) _ _ hr ho))
    t

theorem ilookup_holds (P : Outcome → Bool) (d : Outcome) (hd : Holds P d) (keys : KTree) (miss : Nat)
    (outs : NTree) (h : Eq (NTree.all P outs) Bool.true) (k : Val) : Holds P (ilookup keys miss outs d k) :=
  ntree_holds P d hd (KTree.find k miss keys) outs h


/-! ## Search trees of entries (witnesses of `--spec` specs)

`VTree` holds `(input, outcome)` entries ordered by `Val.order`; the lookup checks `Val.beq` at the
node it reaches, so that a hit means an equal input (the `Py.vfind_sat` lemma needs that). -/

inductive VTree where
  | leaf : VTree
  | node : VTree → Val → Outcome → VTree → VTree

def VTree.find (d : Outcome) (k : Val) (t : VTree) : Outcome :=
  VTree.rec (motive := fun _ => Outcome) d
    (fun _ k' o _ ihl ihr => cond (Nat.beq (Val.order k k') 0) ihl
      (cond (Nat.beq (Val.order k k') 2) ihr (cond (Val.beq k k') o d))) t

theorem vtree_lt (d : Outcome) (k k' : Val) (o : Outcome) (l r : VTree) (h : Eq (Val.order k k') 0) :
    Eq (VTree.find d k (VTree.node l k' o r)) (VTree.find d k l) :=
  @Eq.ndrec Nat 0 (fun x => Eq (cond (Nat.beq x 0) (VTree.find d k l)
      (cond (Nat.beq x 2) (VTree.find d k r) (cond (Val.beq k k') o d))) (VTree.find d k l))
    (Eq.refl (VTree.find d k l)) (Val.order k k') (Eq.symm h)

theorem vtree_gt (d : Outcome) (k k' : Val) (o : Outcome) (l r : VTree) (h : Eq (Val.order k k') 2) :
    Eq (VTree.find d k (VTree.node l k' o r)) (VTree.find d k r) :=
  @Eq.ndrec Nat 2 (fun x => Eq (cond (Nat.beq x 0) (VTree.find d k l)
      (cond (Nat.beq x 2) (VTree.find d k r) (cond (Val.beq k k') o d))) (VTree.find d k r))
    (Eq.refl (VTree.find d k r)) (Val.order k k') (Eq.symm h)

theorem vtree_hit (d : Outcome) (k : Val) (o : Outcome) (l r : VTree) :
    Eq (VTree.find d k (VTree.node l k o r)) o :=
  @Eq.ndrec Nat 1 (fun x => Eq (cond (Nat.beq x 0) (VTree.find d k l)
      (cond (Nat.beq x 2) (VTree.find d k r) (cond (Val.beq k k) o d))) o)
    (@Eq.ndrec Bool Bool.true (fun b => Eq (cond b o d) o) (Eq.refl o) (Val.beq k k) (Eq.symm (Val.beq_refl k)))
    (Val.order k k) (Eq.symm (Val.order_refl k))

end SpecGuard
