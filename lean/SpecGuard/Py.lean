prelude
import SpecGuard.Core
import SpecGuard.Value

/-!
# SpecGuard.Py: the semantics of SpecGuard's restricted Python specification language

A spec (`specguard check --spec spec.py`) is a small pure Python program.  SpecGuard compiles
it (`specguard/speclang.py`) into one Lean *term* in continuation-passing style: locals become
Lean binders, every operation is a call to a function of this file, loops are `Nat.rec` (while,
bounded by fuel) or `List.rec` (for), user functions form one table `Nat → List Val → Option Res`
built by `Nat.rec` over the fuel.  The kernel evaluates that term at a test's input.

Conventions (the Python mirror in `specguard/speclang.py` implements the same ones):

* Values are `Val`s: `none`, `bool`, `int`, `str`, `list s`, `tuple s`, `dict s` (entries
  `pair k v` in insertion order), `set s`.  Sequences may have any `nil/one/cat` shape here;
  `canon` rebuilds the canonical (balanced, sorted) representative.
* Every operation returns `Option`: `none` stands for an *implicit* Python error (TypeError,
  IndexError, ZeroDivisionError, ...), for a case outside the subset (floats, non-ASCII case
  mapping, iteration over a set, ...) and, in compiled code, for running out of fuel.  A `none`
  never becomes a claim: the spec then says nothing about that input.
* An explicit `raise Name(...)` in the spec is `Res.raise "Name"`; it propagates through
  expressions and statements like a Python exception.
* Results of arithmetic are forced (`intV` matches on the number) so that loops never build
  chains of unevaluated additions.
* Functions that iterate over data use the recursors (`List.rec`, `Nat.rec`) directly, which the
  elaborator and the kernel evaluate several times faster than equation-compiled recursion.
-/

noncomputable section
namespace SpecGuard
namespace Py

/-! ## Results and plumbing -/

/-- How a spec function (or an expression that calls one) completes. -/
inductive Res where
  | ret (v : Val)
  | raise (name : String)

def bindO {α β : Type} (o : Option α) (k : α → Option β) : Option β :=
  match o with
  | Option.none => Option.none
  | Option.some a => k a

def bindE (o : Option Res) (k : Val → Option Res) : Option Res :=
  match o with
  | Option.none => Option.none
  | Option.some r => match r with
    | Res.ret v => k v
    | Res.raise n => Option.some (Res.raise n)

def ret (v : Val) : Option Res := Option.some (Res.ret v)

def raiseE (n : String) : Option Res := Option.some (Res.raise n)

def some {α : Type} (a : α) : Option α := Option.some a

def fail {α : Type} : Option α := Option.none

/-- `cond` on an optional Bool (`none` propagates). -/
def branch {α : Type} (b : Option Bool) (t e : Option α) : Option α :=
  match b with
  | Option.none => Option.none
  | Option.some x => cond x t e

/-! ## Generic lists (recursor-based) -/

def len {α : Type} (l : List α) : Nat :=
  List.rec (motive := fun _ => Nat) 0 (fun _ _ ih => Nat.succ ih) l

def nth {α : Type} (l : List α) : Nat → Option α :=
  List.rec (motive := fun _ => Nat → Option α) (fun _ => Option.none)
    (fun x _ ih i => match i with
      | Nat.zero => Option.some x
      | Nat.succ j => ih j) l

def take {α : Type} (l : List α) : Nat → List α :=
  List.rec (motive := fun _ => Nat → List α) (fun _ => List.nil)
    (fun x _ ih i => match i with
      | Nat.zero => List.nil
      | Nat.succ j => List.cons x (ih j)) l

def drop {α : Type} (l : List α) : Nat → List α :=
  List.rec (motive := fun _ => Nat → List α) (fun _ => List.nil)
    (fun x r ih i => match i with
      | Nat.zero => List.cons x r
      | Nat.succ j => ih j) l

def app {α : Type} (a b : List α) : List α :=
  List.rec (motive := fun _ => List α) b (fun x _ ih => List.cons x ih) a

def rev {α : Type} (l : List α) : List α :=
  List.rec (motive := fun _ => List α → List α) (fun acc => acc)
    (fun x _ ih acc => ih (List.cons x acc)) l List.nil

def map {α β : Type} (f : α → β) (l : List α) : List β :=
  List.rec (motive := fun _ => List β) List.nil (fun x _ ih => List.cons (f x) ih) l

/-- Map with a partial function: `none` as soon as one element fails. -/
def mapO {α β : Type} (f : α → Option β) (l : List α) : Option (List β) :=
  List.rec (motive := fun _ => Option (List β)) (Option.some List.nil)
    (fun x _ ih => bindO (f x) (fun y => bindO ih (fun ys => Option.some (List.cons y ys)))) l

/-- All elements satisfy a partial test (evaluated left to right, stopping at the first false). -/
def allO {α : Type} (p : α → Option Bool) (l : List α) : Option Bool :=
  List.rec (motive := fun _ => Option Bool) (Option.some Bool.true)
    (fun x _ ih => branch (p x) ih (Option.some Bool.false)) l

/-- Some element satisfies a partial test (stopping at the first true). -/
def anyO {α : Type} (p : α → Option Bool) (l : List α) : Option Bool :=
  List.rec (motive := fun _ => Option Bool) (Option.some Bool.false)
    (fun x _ ih => branch (p x) (Option.some Bool.true) ih) l

def replicate {α : Type} (n : Nat) (x : α) : List α :=
  Nat.rec (motive := fun _ => List α) List.nil (fun _ ih => List.cons x ih) n

def concatN {α : Type} (n : Nat) (l : List α) : List α :=
  Nat.rec (motive := fun _ => List α) List.nil (fun _ ih => app l ih) n

/-! ## Sequences stored in `Val` trees -/

/-- The elements of a sequence tree, in order (lazily; shape-independent). -/
def elemsAcc (v : Val) : List Val → List Val :=
  Val.rec (motive := fun _ => List Val → List Val)
    (fun acc => acc) (fun _ acc => acc) (fun _ acc => acc) (fun _ acc => acc) (fun _ _ acc => acc)
    (fun _ acc => acc) (fun acc => acc) (fun _ acc => acc) (fun _ acc => acc)
    (fun acc => acc) (fun x _ acc => List.cons x acc) (fun _ _ ia ib acc => ia (ib acc))
    (fun _ _ _ _ acc => acc) (fun _ _ acc => acc) (fun _ _ acc => acc) (fun _ _ acc => acc)
    (fun _ _ acc => acc) (fun _ _ acc => acc) v

def elems (v : Val) : List Val := elemsAcc v List.nil

/-- A right-nested sequence tree holding the list. -/
def seq (l : List Val) : Val :=
  List.rec (motive := fun _ => Val) Val.nil (fun x _ ih => Val.cat (Val.one x) ih) l

def mkList (l : List Val) : Val := Val.list (seq l)
def mkTuple (l : List Val) : Val := Val.tuple (seq l)

/-! ## Integers -/

/-- An integer result, forced to a numeral (no thunk chains in loops). -/
def intV (i : Int) : Option Val :=
  match i with
  | Int.ofNat n => match n with
    | Nat.zero => Option.some (Val.int (Int.ofNat Nat.zero))
    | Nat.succ m => Option.some (Val.int (Int.ofNat (Nat.succ m)))
  | Int.negSucc n => match n with
    | Nat.zero => Option.some (Val.int (Int.negSucc Nat.zero))
    | Nat.succ m => Option.some (Val.int (Int.negSucc (Nat.succ m)))

def b2i (b : Bool) : Int := cond b (Int.ofNat 1) (Int.ofNat 0)

/-- The integer value of an `int` or a `bool`. -/
def num (v : Val) : Option Int :=
  match v with
  | Val.int i => Option.some i
  | Val.bool b => Option.some (b2i b)
  | _ => Option.none

def isZero (i : Int) : Bool := Int.beq i (Int.ofNat 0)
def isNeg (i : Int) : Bool := Bool.not (Int.isNonneg i)

/-- `b ** e` for a natural exponent. -/
def ipow (b : Int) (e : Nat) : Int :=
  match b with
  | Int.ofNat n => Int.ofNat (Nat.pow n e)
  | Int.negSucc n => cond (Nat.beq (Nat.mod e 2) 0) (Int.ofNat (Nat.pow (Nat.succ n) e))
      (Int.negOfNat (Nat.pow (Nat.succ n) e))

/-- Python's `&`, `|`, `^` on integers (two's complement semantics), via `~x = -x-1`. -/
def iand (a b : Int) : Int :=
  match a, b with
  | Int.ofNat m, Int.ofNat n => Int.ofNat (Nat.land m n)
  | Int.ofNat m, Int.negSucc n => Int.ofNat (Nat.sub m (Nat.land m n))
  | Int.negSucc m, Int.ofNat n => Int.ofNat (Nat.sub n (Nat.land n m))
  | Int.negSucc m, Int.negSucc n => Int.negSucc (Nat.lor m n)

def ior (a b : Int) : Int :=
  match a, b with
  | Int.ofNat m, Int.ofNat n => Int.ofNat (Nat.lor m n)
  | Int.ofNat m, Int.negSucc n => Int.negSucc (Nat.sub n (Nat.land n m))
  | Int.negSucc m, Int.ofNat n => Int.negSucc (Nat.sub m (Nat.land m n))
  | Int.negSucc m, Int.negSucc n => Int.negSucc (Nat.land m n)

def ixor (a b : Int) : Int :=
  match a, b with
  | Int.ofNat m, Int.ofNat n => Int.ofNat (Nat.xor m n)
  | Int.ofNat m, Int.negSucc n => Int.negSucc (Nat.xor m n)
  | Int.negSucc m, Int.ofNat n => Int.negSucc (Nat.xor m n)
  | Int.negSucc m, Int.negSucc n => Int.ofNat (Nat.xor m n)

def iinvert (a : Int) : Int := Int.sub (Int.neg a) (Int.ofNat 1)

/-! ## Characters and strings -/

def chars (s : String) : List Char := s.data
def mkStr (l : List Char) : Val := Val.str (String.ofList l)
def charStr (c : Char) : Val := Val.str (String.ofList (List.cons c List.nil))

def isAscii (c : Char) : Bool := Nat.blt c.val 128

/-- ASCII whitespace as `str.isspace` sees it: `\t\n\v\f\r`, `\x1c`-`\x1f` and space. -/
def isSpaceA (c : Char) : Bool :=
  Bool.or (Bool.and (Nat.ble 9 c.val) (Nat.ble c.val 13))
    (Bool.or (Bool.and (Nat.ble 28 c.val) (Nat.ble c.val 32)) Bool.false)

/-- `some b` for an ASCII char, `none` for a non-ASCII one (outside the subset). -/
def spaceO (c : Char) : Option Bool := cond (isAscii c) (Option.some (isSpaceA c)) Option.none

def isDigitA (c : Char) : Bool := Bool.and (Nat.ble 48 c.val) (Nat.ble c.val 57)
def isUpperA (c : Char) : Bool := Bool.and (Nat.ble 65 c.val) (Nat.ble c.val 90)
def isLowerA (c : Char) : Bool := Bool.and (Nat.ble 97 c.val) (Nat.ble c.val 122)
def isAlphaA (c : Char) : Bool := Bool.or (isUpperA c) (isLowerA c)

def charLt (a b : Char) : Bool := Nat.blt a.val b.val

/-- Lexicographic `<` on code points (Python's `str` order). -/
def strLt (a : List Char) : List Char → Bool :=
  List.rec (motive := fun _ => List Char → Bool)
    (fun b => match b with
      | List.nil => Bool.false
      | List.cons _ _ => Bool.true)
    (fun x _ ih b => match b with
      | List.nil => Bool.false
      | List.cons y ys => cond (Nat.beq x.val y.val) (ih ys) (charLt x y)) a

def charsEq (a b : List Char) : Bool := List.beqBy Char.beq a b

def startsWith (s : List Char) (p : List Char) : Bool :=
  List.rec (motive := fun _ => List Char → Bool) (fun _ => Bool.true)
    (fun x _ ih s => match s with
      | List.nil => Bool.false
      | List.cons y ys => Bool.and (Nat.beq x.val y.val) (ih ys)) p s

/-- Map every char with an ASCII-only function (`none` if a non-ASCII char occurs). -/
def mapAscii (f : Char → Char) (l : List Char) : Option (List Char) :=
  mapO (fun c => cond (isAscii c) (Option.some (f c)) Option.none) l

def lowerC (c : Char) : Char := cond (isUpperA c) (Char.ofNat (Nat.add c.val 32)) c
def upperC (c : Char) : Char := cond (isLowerA c) (Char.ofNat (Nat.sub c.val 32)) c

/-- Drop leading chars while a partial test holds. -/
def dropWhileO (p : Char → Option Bool) (l : List Char) : Option (List Char) :=
  List.rec (motive := fun _ => Option (List Char)) (Option.some List.nil)
    (fun x r ih => branch (p x) ih (Option.some (List.cons x r))) l

def memChar (c : Char) (l : List Char) : Bool := List.any (fun d => Nat.beq c.val d.val) l

/-- Index of the first occurrence of `sub` in `s` at or after position `i` (within `s`). -/
def findFrom (sub : List Char) (s : List Char) (i : Nat) : Option Nat :=
  List.rec (motive := fun _ => Nat → Option Nat)
    (fun i => cond (List.isEmpty sub) (Option.some i) Option.none)
    (fun x r ih i => cond (startsWith (List.cons x r) sub) (Option.some i) (ih (Nat.succ i))) s i

def find (s sub : List Char) : Option Nat := findFrom sub s 0

/-- Non-overlapping occurrences of a non-empty `sub`, scanning with fuel `len s`. -/
def countSub (sub : List Char) (n : Nat) : List Char → Nat :=
  Nat.rec (motive := fun _ => List Char → Nat) (fun _ => 0)
    (fun _ ih s => match s with
      | List.nil => 0
      | List.cons _ r => cond (startsWith s sub) (Nat.succ (ih (drop s (len sub))))
          (ih r)) n

/-- Split on a non-empty separator (fuel: `len s + 1` pieces at most). -/
def splitSep (sep : List Char) (n : Nat) : List Char → List (List Char) :=
  Nat.rec (motive := fun _ => List Char → List (List Char)) (fun s => List.cons s List.nil)
    (fun _ ih s => match find s sep with
      | Option.none => List.cons s List.nil
      | Option.some i => List.cons (take s i) (ih (drop s (Nat.add i (len sep))))) n

/-- Split on runs of ASCII whitespace (`str.split()`), `none` on a non-ASCII char. -/
def splitWs (l : List Char) : Option (List (List Char)) :=
  bindO (mapO spaceO l) (fun _ =>
    Option.some (rev (List.rec (motive := fun _ => List (List Char) → List Char → List (List Char))
      (fun acc cur => match cur with
        | List.nil => acc
        | List.cons _ _ => List.cons (rev cur) acc)
      (fun c _ ih acc cur => cond (isSpaceA c)
        (match cur with
          | List.nil => ih acc List.nil
          | List.cons _ _ => ih (List.cons (rev cur) acc) List.nil)
        (ih acc (List.cons c cur))) l List.nil List.nil)))

def joinWith (sep : List Char) (parts : List (List Char)) : List Char :=
  match parts with
  | List.nil => List.nil
  | List.cons p ps => app p (List.rec (motive := fun _ => List Char) List.nil
      (fun q _ ih => app sep (app q ih)) ps)

/-- `s.replace(old, new)`, `old` non-empty. -/
def replaceSub (old new : List Char) (n : Nat) : List Char → List Char :=
  Nat.rec (motive := fun _ => List Char → List Char) (fun s => s)
    (fun _ ih s => match s with
      | List.nil => List.nil
      | List.cons x r => cond (startsWith s old) (app new (ih (drop s (len old))))
          (List.cons x (ih r))) n

/-- Decimal digits of a natural number (most significant first), with fuel. -/
def digitsF (fuel : Nat) (n : Nat) : List Char :=
  Nat.rec (motive := fun _ => Nat → List Char → List Char) (fun _ acc => acc)
    (fun _ ih n acc => cond (Nat.blt n 10) (List.cons (Char.ofNat (Nat.add 48 n)) acc)
      (ih (Nat.div n 10) (List.cons (Char.ofNat (Nat.add 48 (Nat.mod n 10))) acc))) fuel n List.nil

/-- `str(i)`; CPython 3.11 refuses more than 4300 digits (ValueError). -/
def intStr (i : Int) : Option (List Char) :=
  match i with
  | Int.ofNat n => let d := digitsF 4301 n
      cond (Nat.ble (len d) 4300) (Option.some d) Option.none
  | Int.negSucc n => let d := digitsF 4301 (Nat.succ n)
      cond (Nat.ble (len d) 4300) (Option.some (List.cons (Char.ofNat 45) d)) Option.none

def digitVal (c : Char) : Nat := Nat.sub c.val 48

/-- Digits with single underscores between them (`int()` syntax), most significant first. -/
def parseDigits (l : List Char) : Option Nat :=
  match l with
  | List.nil => Option.none
  | List.cons c r => cond (isDigitA c)
      (List.rec (motive := fun _ => Nat → Bool → Option Nat)
        (fun acc lastUnd => cond lastUnd Option.none (Option.some acc))
        (fun d _ ih acc lastUnd => cond (isDigitA d) (ih (Nat.add (Nat.mul acc 10) (digitVal d)) Bool.false)
          (cond (Bool.and (Nat.beq d.val 95) (Bool.not lastUnd)) (ih acc Bool.true) Option.none))
        r (digitVal c) Bool.false)
      Option.none

def dropWs (l : List Char) : Option (List Char) := dropWhileO spaceO l

/-- `int(s)` for a str: surrounding whitespace, a sign, digits and single underscores (ASCII only,
at most 4300 digits, as CPython 3.11 allows). -/
def parseInt (s : List Char) : Option Int :=
  bindO (dropWs s) (fun a => bindO (dropWs (rev a)) (fun b =>
    let t := rev b
    cond (Nat.ble (len (List.rec (motive := fun _ => List Char) List.nil
        (fun c _ ih => cond (isDigitA c) (List.cons c ih) ih) t)) 4300)
      (match t with
        | List.cons c r => cond (Nat.beq c.val 45) (bindO (parseDigits r) (fun n => Option.some (Int.negOfNat n)))
            (cond (Nat.beq c.val 43) (bindO (parseDigits r) (fun n => Option.some (Int.ofNat n)))
              (bindO (parseDigits t) (fun n => Option.some (Int.ofNat n))))
        | List.nil => Option.none)
      Option.none))

def hexDigit (n : Nat) : Char := cond (Nat.blt n 10) (Char.ofNat (Nat.add 48 n)) (Char.ofNat (Nat.add 87 n))

/-- `repr()` of a str (ASCII only; `none` on a non-ASCII char). -/
def strRepr (l : List Char) : Option (List Char) :=
  let dq := Bool.and (memChar (Char.ofNat 39) l) (Bool.not (memChar (Char.ofNat 34) l))
  let q := cond dq (Char.ofNat 34) (Char.ofNat 39)
  bindO (mapO (fun c => cond (Bool.not (isAscii c)) Option.none
      (cond (Nat.beq c.val 92) (Option.some (List.cons c (List.cons c List.nil)))
      (cond (Nat.beq c.val q.val) (Option.some (List.cons (Char.ofNat 92) (List.cons c List.nil)))
      (cond (Nat.beq c.val 9) (Option.some (List.cons (Char.ofNat 92) (List.cons (Char.ofNat 116) List.nil)))
      (cond (Nat.beq c.val 10) (Option.some (List.cons (Char.ofNat 92) (List.cons (Char.ofNat 110) List.nil)))
      (cond (Nat.beq c.val 13) (Option.some (List.cons (Char.ofNat 92) (List.cons (Char.ofNat 114) List.nil)))
      (cond (Bool.or (Nat.blt c.val 32) (Nat.beq c.val 127))
        (Option.some (List.cons (Char.ofNat 92) (List.cons (Char.ofNat 120)
          (List.cons (hexDigit (Nat.div c.val 16)) (List.cons (hexDigit (Nat.mod c.val 16)) List.nil)))))
        (Option.some (List.cons c List.nil)))))))))
    l) (fun parts => Option.some (List.cons q (app (List.rec (motive := fun _ => List Char) List.nil
      (fun p _ ih => app p ih) parts) (List.cons q List.nil))))

def lit (s : String) : List Char := s.data

/-! ## Depth-bounded structural operations

Equality, ordering, hashability, `repr` and `canon` recurse into nested values.  They are
written as one step function applied `Nat.rec`-many times (`nest`), so nesting deeper than
`DEPTH` levels gives `none` (CPython itself stops near 1000). -/

def DEPTH : Nat := 500

def nest {α : Type} (bot : α) (step : α → α) : α := Nat.rec (motive := fun _ => α) bot (fun _ r => step r) DEPTH

/-- The kinds of values inside the subset. -/
def inSubset (v : Val) : Bool :=
  match v with
  | Val.none => Bool.true
  | Val.bool _ => Bool.true
  | Val.int _ => Bool.true
  | Val.str _ => Bool.true
  | Val.list _ => Bool.true
  | Val.tuple _ => Bool.true
  | Val.dict _ => Bool.true
  | Val.set _ => Bool.true
  | _ => Bool.false

def key (e : Val) : Val := match e with
  | Val.pair k _ => k
  | _ => Val.none

def value (e : Val) : Val := match e with
  | Val.pair _ v => v
  | _ => Val.none

def lookupBy (eq : Val → Val → Option Bool) (k : Val) (entries : List Val) : Option (Option Val) :=
  List.rec (motive := fun _ => Option (Option Val)) (Option.some Option.none)
    (fun e _ ih => branch (eq k (key e)) (Option.some (Option.some (value e))) ih) entries

def memBy (eq : Val → Val → Option Bool) (x : Val) (l : List Val) : Option Bool := anyO (fun y => eq x y) l

def listEqBy (eq : Val → Val → Option Bool) (a b : List Val) : Option Bool :=
  cond (Nat.beq (len a) (len b))
    (List.rec (motive := fun _ => List Val → Option Bool) (fun _ => Option.some Bool.true)
      (fun x _ ih b => match b with
        | List.nil => Option.some Bool.false
        | List.cons y ys => branch (eq x y) (ih ys) (Option.some Bool.false)) a b)
    (Option.some Bool.false)

def eqStep (eq : Val → Val → Option Bool) (a b : Val) : Option Bool :=
  match a, b with
  | Val.int x, Val.int y => Option.some (Int.beq x y)
  | Val.str x, Val.str y => Option.some (charsEq x.data y.data)
  | Val.none, Val.none => Option.some Bool.true
  | Val.bool x, Val.bool y => Option.some (boolEq x y)
  | Val.int x, Val.bool y => Option.some (Int.beq x (b2i y))
  | Val.bool x, Val.int y => Option.some (Int.beq (b2i x) y)
  | Val.list x, Val.list y => listEqBy eq (elems x) (elems y)
  | Val.tuple x, Val.tuple y => listEqBy eq (elems x) (elems y)
  | Val.dict x, Val.dict y => let ex := elems x
      let ey := elems y
      cond (Nat.beq (len ex) (len ey))
        (allO (fun e => bindO (lookupBy eq (key e) ey) (fun o => match o with
          | Option.none => Option.some Bool.false
          | Option.some w => eq (value e) w)) ex)
        (Option.some Bool.false)
  | Val.set x, Val.set y => let ex := elems x
      let ey := elems y
      cond (Nat.beq (len ex) (len ey)) (allO (fun e => memBy eq e ey) ex) (Option.some Bool.false)
  | _, _ => cond (Bool.and (inSubset a) (inSubset b)) (Option.some Bool.false) Option.none

/-- Python's `==` (`none` outside the subset or beyond `DEPTH` levels). -/
def eq (a b : Val) : Option Bool := nest (fun _ _ => Option.none) eqStep a b

def hashStep (h : Val → Option Bool) (v : Val) : Option Bool :=
  match v with
  | Val.none => Option.some Bool.true
  | Val.bool _ => Option.some Bool.true
  | Val.int _ => Option.some Bool.true
  | Val.str _ => Option.some Bool.true
  | Val.tuple s => allO h (elems s)
  | Val.list _ => Option.some Bool.false
  | Val.dict _ => Option.some Bool.false
  | Val.set _ => Option.some Bool.false
  | _ => Option.none

def hashable (v : Val) : Option Bool := nest (fun _ => Option.none) hashStep v

/-- `none` unless `v` is hashable (TypeError otherwise). -/
def needHash (v : Val) : Option Unit := branch (hashable v) (Option.some Unit.unit) Option.none

/-- Comparison codes: 0 `<`, 1 `<=`, 2 `>`, 3 `>=`. -/
def natCmp (op : Nat) (a b : Nat) : Bool :=
  match op with
  | 0 => Nat.blt a b
  | 1 => Nat.ble a b
  | 2 => Nat.blt b a
  | _ => Nat.ble b a

def intCmp (op : Nat) (a b : Int) : Bool :=
  match op with
  | 0 => Int.blt a b
  | 1 => Int.ble a b
  | 2 => Int.blt b a
  | _ => Int.ble b a

def strCmp (op : Nat) (a b : List Char) : Bool :=
  match op with
  | 0 => strLt a b
  | 1 => Bool.not (strLt b a)
  | 2 => strLt b a
  | _ => Bool.not (strLt a b)

/-- CPython's sequence comparison: the first index where the items differ (by `==`) decides
with `op`; when there is none, the lengths decide. -/
def seqCmp (eq : Val → Val → Option Bool) (cmp : Nat → Val → Val → Option Bool) (op : Nat)
    (a b : List Val) : Option Bool :=
  List.rec (motive := fun _ => List Val → Option Bool)
    (fun b => Option.some (natCmp op 0 (len b)))
    (fun x r ih b => match b with
      | List.nil => Option.some (natCmp op (len (List.cons x r)) 0)
      | List.cons y ys => branch (eq x y) (ih ys) (cmp op x y)) a b

def cmpStep (cmp : Nat → Val → Val → Option Bool) (op : Nat) (a b : Val) : Option Bool :=
  match a, b with
  | Val.str x, Val.str y => Option.some (strCmp op x.data y.data)
  | Val.list x, Val.list y => seqCmp eq cmp op (elems x) (elems y)
  | Val.tuple x, Val.tuple y => seqCmp eq cmp op (elems x) (elems y)
  | _, _ => bindO (num a) (fun x => bindO (num b) (fun y => Option.some (intCmp op x y)))

/-- Python's `<` (0), `<=` (1), `>` (2), `>=` (3); `none` for TypeError. -/
def cmp (op : Nat) (a b : Val) : Option Bool := nest (fun _ _ _ => Option.none) cmpStep op a b

/-! ## Truthiness, length, iteration -/

def truth (v : Val) : Option Bool :=
  match v with
  | Val.bool b => Option.some b
  | Val.int i => Option.some (Bool.not (isZero i))
  | Val.none => Option.some Bool.false
  | Val.str s => Option.some (Bool.not (List.isEmpty s.data))
  | Val.list s => Option.some (Bool.not (List.isEmpty (elems s)))
  | Val.tuple s => Option.some (Bool.not (List.isEmpty (elems s)))
  | Val.dict s => Option.some (Bool.not (List.isEmpty (elems s)))
  | Val.set s => Option.some (Bool.not (List.isEmpty (elems s)))
  | _ => Option.none

def lenOf (v : Val) : Option Nat :=
  match v with
  | Val.str s => Option.some (len s.data)
  | Val.list s => Option.some (len (elems s))
  | Val.tuple s => Option.some (len (elems s))
  | Val.dict s => Option.some (len (elems s))
  | Val.set s => Option.some (len (elems s))
  | _ => Option.none

/-- The items a `for` loop sees.  Iterating a set is outside the subset (CPython's order). -/
def iter (v : Val) : Option (List Val) :=
  match v with
  | Val.list s => Option.some (elems s)
  | Val.tuple s => Option.some (elems s)
  | Val.str s => Option.some (map charStr s.data)
  | Val.dict s => Option.some (map key (elems s))
  | _ => Option.none

def natV (n : Nat) : Val := Val.int (Int.ofNat n)

/-! ## Operators -/

def repeatN (n : Int) (l : List Val) : List Val :=
  match n with
  | Int.ofNat k => concatN k l
  | Int.negSucc _ => List.nil

def add (a b : Val) : Option Val :=
  match a, b with
  | Val.int x, Val.int y => intV (Int.add x y)
  | Val.str x, Val.str y => Option.some (Val.str (String.ofList (app x.data y.data)))
  | Val.list x, Val.list y => Option.some (Val.list (Val.cat x y))
  | Val.tuple x, Val.tuple y => Option.some (Val.tuple (Val.cat x y))
  | _, _ => bindO (num a) (fun x => bindO (num b) (fun y => intV (Int.add x y)))

def setOp (keepLeft : Bool → Bool) (addRight : Bool) (x y : Val) : Option Val :=
  let ex := elems x
  let ey := elems y
  bindO (mapO (fun e => bindO (memBy eq e ey) (fun m => Option.some (Prod.mk e (keepLeft m)))) ex) (fun marks =>
    let left := List.rec (motive := fun _ => List Val) List.nil
      (fun p _ ih => cond p.snd (List.cons p.fst ih) ih) marks
    cond addRight
      (bindO (mapO (fun e => bindO (memBy eq e ex) (fun m => Option.some (Prod.mk e (Bool.not m)))) ey) (fun marks2 =>
        Option.some (Val.set (seq (app left (List.rec (motive := fun _ => List Val) List.nil
          (fun p _ ih => cond p.snd (List.cons p.fst ih) ih) marks2))))))
      (Option.some (Val.set (seq left))))

def sub (a b : Val) : Option Val :=
  match a, b with
  | Val.int x, Val.int y => intV (Int.sub x y)
  | Val.set x, Val.set y => setOp Bool.not Bool.false x y
  | _, _ => bindO (num a) (fun x => bindO (num b) (fun y => intV (Int.sub x y)))

def mul (a b : Val) : Option Val :=
  match a, b with
  | Val.int x, Val.int y => intV (Int.mul x y)
  | Val.str x, _ => bindO (num b) (fun n => Option.some (mkStr (match n with
      | Int.ofNat k => concatN k x.data
      | Int.negSucc _ => List.nil)))
  | _, Val.str y => bindO (num a) (fun n => Option.some (mkStr (match n with
      | Int.ofNat k => concatN k y.data
      | Int.negSucc _ => List.nil)))
  | Val.list x, _ => bindO (num b) (fun n => Option.some (mkList (repeatN n (elems x))))
  | _, Val.list y => bindO (num a) (fun n => Option.some (mkList (repeatN n (elems y))))
  | Val.tuple x, _ => bindO (num b) (fun n => Option.some (mkTuple (repeatN n (elems x))))
  | _, Val.tuple y => bindO (num a) (fun n => Option.some (mkTuple (repeatN n (elems y))))
  | _, _ => bindO (num a) (fun x => bindO (num b) (fun y => intV (Int.mul x y)))

def floordiv (a b : Val) : Option Val :=
  bindO (num a) (fun x => bindO (num b) (fun y => cond (isZero y) Option.none (intV (Int.fdiv x y))))

def mod (a b : Val) : Option Val :=
  bindO (num a) (fun x => bindO (num b) (fun y => cond (isZero y) Option.none (intV (Int.fmod x y))))

/-- `a ** b` for a non-negative exponent (a negative one gives a float: outside the subset). -/
def pow (a b : Val) : Option Val :=
  bindO (num a) (fun x => bindO (num b) (fun y => match y with
    | Int.ofNat e => intV (ipow x e)
    | Int.negSucc _ => Option.none))

def bothBool (a b : Val) : Option (Prod Bool Bool) :=
  match a, b with
  | Val.bool x, Val.bool y => Option.some (Prod.mk x y)
  | _, _ => Option.none

def bitop (f : Int → Int → Int) (g : Bool → Bool → Bool) (a b : Val) : Option Val :=
  match bothBool a b with
  | Option.some p => Option.some (Val.bool (g p.fst p.snd))
  | Option.none => bindO (num a) (fun x => bindO (num b) (fun y => intV (f x y)))

def bitand (a b : Val) : Option Val :=
  match a, b with
  | Val.set x, Val.set y => setOp id Bool.false x y
  | _, _ => bitop iand Bool.and a b

def bitor (a b : Val) : Option Val :=
  match a, b with
  | Val.set x, Val.set y => setOp (fun _ => Bool.true) Bool.true x y
  | _, _ => bitop ior Bool.or a b

def bitxor (a b : Val) : Option Val :=
  match a, b with
  | Val.set x, Val.set y => setOp Bool.not Bool.true x y
  | _, _ => bitop ixor Bool.xor a b

def lshift (a b : Val) : Option Val :=
  bindO (num a) (fun x => bindO (num b) (fun y => match y with
    | Int.ofNat n => intV (Int.mul x (Int.ofNat (Nat.pow 2 n)))
    | Int.negSucc _ => Option.none))

def rshift (a b : Val) : Option Val :=
  bindO (num a) (fun x => bindO (num b) (fun y => match y with
    | Int.ofNat n => intV (Int.fdiv x (Int.ofNat (Nat.pow 2 n)))
    | Int.negSucc _ => Option.none))

def neg (a : Val) : Option Val := bindO (num a) (fun x => intV (Int.neg x))
def pos (a : Val) : Option Val := bindO (num a) (fun x => intV x)
def invert (a : Val) : Option Val := bindO (num a) (fun x => intV (iinvert x))
def notOp (a : Val) : Option Val := bindO (truth a) (fun t => Option.some (Val.bool (Bool.not t)))

def eqOp (a b : Val) : Option Val := bindO (eq a b) (fun t => Option.some (Val.bool t))
def neOp (a b : Val) : Option Val := bindO (eq a b) (fun t => Option.some (Val.bool (Bool.not t)))
def cmpOp (op : Nat) (a b : Val) : Option Val := bindO (cmp op a b) (fun t => Option.some (Val.bool t))

/-- `x in c`. -/
def contains (c x : Val) : Option Bool :=
  match c with
  | Val.list s => memBy eq x (elems s)
  | Val.tuple s => memBy eq x (elems s)
  | Val.str s => match x with
    | Val.str t => Option.some (Option.isSome (find s.data t.data))
    | _ => Option.none
  | Val.dict s => bindO (needHash x) (fun _ => memBy eq x (map key (elems s)))
  | Val.set s => bindO (needHash x) (fun _ => memBy eq x (elems s))
  | _ => Option.none

def inOp (x c : Val) : Option Val := bindO (contains c x) (fun t => Option.some (Val.bool t))
def notInOp (x c : Val) : Option Val := bindO (contains c x) (fun t => Option.some (Val.bool (Bool.not t)))

def isNoneV (v : Val) : Bool := match v with
  | Val.none => Bool.true
  | _ => Bool.false

/-- `x is y` where `y` is `None`, `True` or `False` (the only identities in the subset). -/
def isOp (a b : Val) : Option Val :=
  match b with
  | Val.none => Option.some (Val.bool (isNoneV a))
  | Val.bool y => Option.some (Val.bool (match a with
    | Val.bool x => boolEq x y
    | _ => Bool.false))
  | _ => Option.none

def isNotOp (a b : Val) : Option Val := bindO (isOp a b) (fun r => notOp r)

/-! ## Indexing and slicing -/

/-- A Python index into a sequence of length `n` (negative counts from the end). -/
def normIdx (n : Nat) (i : Int) : Option Nat :=
  match i with
  | Int.ofNat k => cond (Nat.blt k n) (Option.some k) Option.none
  | Int.negSucc k => cond (Nat.ble (Nat.succ k) n) (Option.some (Nat.sub n (Nat.succ k))) Option.none

def getItem (a i : Val) : Option Val :=
  match a with
  | Val.list s => bindO (num i) (fun k => let l := elems s
      bindO (normIdx (len l) k) (fun j => nth l j))
  | Val.tuple s => bindO (num i) (fun k => let l := elems s
      bindO (normIdx (len l) k) (fun j => nth l j))
  | Val.str s => bindO (num i) (fun k => let l := s.data
      bindO (normIdx (len l) k) (fun j => bindO (nth l j) (fun c => Option.some (charStr c))))
  | Val.dict s => bindO (needHash i) (fun _ => bindO (lookupBy eq i (elems s)) (fun o => o))
  | _ => Option.none

def imax (a b : Int) : Int := cond (Int.blt a b) b a
def imin (a b : Int) : Int := cond (Int.blt a b) a b

/-- CPython's `PySlice_AdjustIndices` bound for one end (`none` argument = default). -/
def sliceEnd (n : Int) (neg : Bool) (dflt : Int) (v : Val) : Option Int :=
  match v with
  | Val.none => Option.some dflt
  | _ => bindO (num v) (fun s => Option.some (cond (isNeg s)
      (imax (Int.add s n) (cond neg (Int.negSucc 0) (Int.ofNat 0)))
      (imin s (cond neg (Int.sub n (Int.ofNat 1)) n))))

/-- Elements at `start, start+step, ...` (`count` of them). -/
def pick {α : Type} (l : List α) (start step : Int) (count : Nat) : Option (List α) :=
  Nat.rec (motive := fun _ => Int → Option (List α)) (fun _ => Option.some List.nil)
    (fun _ ih i => match i with
      | Int.ofNat j => bindO (nth l j) (fun x => bindO (ih (Int.add i step)) (fun r => Option.some (List.cons x r)))
      | Int.negSucc _ => Option.none) count start

def toNat (i : Int) : Nat := match i with
  | Int.ofNat n => n
  | Int.negSucc _ => 0

/-- Square-and-multiply on naturals: `acc * b ^ e % m` in at most `fuel` halvings of `e`
(`none` when `e` has more bits than that). -/
def powModNat (m : Nat) (fuel : Nat) : Nat → Nat → Nat → Option Nat :=
  Nat.rec (motive := fun _ => Nat → Nat → Nat → Option Nat)
    (fun _ e acc => cond (Nat.beq e 0) (Option.some acc) Option.none)
    (fun _ ih b e acc => cond (Nat.beq e 0) (Option.some acc)
      (ih (Nat.mod (Nat.mul b b) m) (Nat.div e 2)
        (cond (Nat.beq (Nat.mod e 2) 1) (Nat.mod (Nat.mul acc b) m) acc))) fuel

/-- `pow(a, b, c)`: a non-negative exponent of at most 4096 bits (a negative one is a modular
inverse: outside the subset); `c == 0` is Python's ValueError; the result has the sign of `c`. -/
def powMod (a b c : Val) : Option Val :=
  bindO (num a) (fun x => bindO (num b) (fun y => bindO (num c) (fun z => match y with
    | Int.negSucc _ => Option.none
    | Int.ofNat e => cond (isZero z) Option.none (
        bindO (powModNat (Int.natAbs z) 4096 (toNat (Int.fmod x (Int.ofNat (Int.natAbs z)))) e
                (Nat.mod 1 (Int.natAbs z)))
          (fun r => cond (Bool.or (Bool.not (isNeg z)) (Nat.beq r 0)) (intV (Int.ofNat r))
                      (intV (Int.sub (Int.ofNat r) (Int.ofNat (Int.natAbs z)))))))))


/-- `l[lo:hi:st]` on a list of anything. -/
def sliceList {α : Type} (l : List α) (lo hi st : Val) : Option (List α) :=
  let n := Int.ofNat (len l)
  bindO (match st with
    | Val.none => Option.some (Int.ofNat 1)
    | _ => num st) (fun step => cond (isZero step) Option.none
    (let neg := isNeg step
     bindO (sliceEnd n neg (cond neg (Int.sub n (Int.ofNat 1)) (Int.ofNat 0)) lo) (fun start =>
     bindO (sliceEnd n neg (cond neg (Int.negSucc 0) n) hi) (fun stop =>
       cond (Int.beq step (Int.ofNat 1))
         (Option.some (take (drop l (toNat start)) (toNat (Int.sub stop start))))
         (let cnt := cond neg
            (cond (Int.blt stop start) (Int.add (Int.fdiv (Int.sub (Int.sub start stop) (Int.ofNat 1)) (Int.neg step)) (Int.ofNat 1)) (Int.ofNat 0))
            (cond (Int.blt start stop) (Int.add (Int.fdiv (Int.sub (Int.sub stop start) (Int.ofNat 1)) step) (Int.ofNat 1)) (Int.ofNat 0))
          pick l start step (toNat cnt))))))

def slice (a lo hi st : Val) : Option Val :=
  match a with
  | Val.list s => bindO (sliceList (elems s) lo hi st) (fun r => Option.some (mkList r))
  | Val.tuple s => bindO (sliceList (elems s) lo hi st) (fun r => Option.some (mkTuple r))
  | Val.str s => bindO (sliceList s.data lo hi st) (fun r => Option.some (mkStr r))
  | _ => Option.none

def setNth (l : List Val) (i : Nat) (v : Val) : List Val :=
  List.rec (motive := fun _ => Nat → List Val) (fun _ => List.nil)
    (fun x r ih i => match i with
      | Nat.zero => List.cons v r
      | Nat.succ j => List.cons x (ih j)) l i

/-- Replace (keeping the first key, as CPython does) or append a dict entry. -/
def dictSet (entries : List Val) (k v : Val) : Option (List Val) :=
  bindO (needHash k) (fun _ =>
    List.rec (motive := fun _ => Option (List Val)) (Option.some (List.cons (Val.pair k v) List.nil))
      (fun e r ih => branch (eq k (key e)) (Option.some (List.cons (Val.pair (key e) v) r))
        (bindO ih (fun t => Option.some (List.cons e t)))) entries)

/-- `a[i] = v`, returning the new container (value semantics; see the ownership rules). -/
def setItem (a i v : Val) : Option Val :=
  match a with
  | Val.list s => bindO (num i) (fun k => let l := elems s
      bindO (normIdx (len l) k) (fun j => Option.some (mkList (setNth l j v))))
  | Val.dict s => bindO (dictSet (elems s) i v) (fun r => Option.some (Val.dict (seq r)))
  | _ => Option.none

/-- `del a[i]`. -/
def delItem (a i : Val) : Option Val :=
  match a with
  | Val.list s => bindO (num i) (fun k => let l := elems s
      bindO (normIdx (len l) k) (fun j => Option.some (mkList (app (take l j) (drop l (Nat.succ j))))))
  | Val.dict s => bindO (needHash i) (fun _ => let l := elems s
      bindO (mapO (fun e => bindO (eq i (key e)) (fun t => Option.some (Prod.mk e t))) l) (fun marks =>
        cond (List.any (fun p => p.snd) marks)
          (Option.some (Val.dict (seq (List.rec (motive := fun _ => List Val) List.nil
            (fun p _ ih => cond p.snd ih (List.cons p.fst ih)) marks))))
          Option.none))
  | _ => Option.none

/-! ## Containers built by the spec -/

/-- Add an element to a set's list (kept when an equal element is already there). -/
def setAdd (l : List Val) (x : Val) : Option (List Val) :=
  bindO (needHash x) (fun _ => bindO (memBy eq x l) (fun m => Option.some (cond m l (app l (List.cons x List.nil)))))

def mkSet (l : List Val) : Option Val :=
  bindO (List.rec (motive := fun _ => List Val → Option (List Val)) (fun acc => Option.some acc)
    (fun x _ ih acc => bindO (setAdd acc x) ih) l List.nil) (fun r => Option.some (Val.set (seq r)))

/-- A dict from `(key, value)` pairs in order (later values win, first keys stay). -/
def mkDict (pairs : List Val) : Option Val :=
  bindO (List.rec (motive := fun _ => List Val → Option (List Val)) (fun acc => Option.some acc)
    (fun p _ ih acc => bindO (dictSet acc (key p) (value p)) ih) pairs List.nil)
    (fun r => Option.some (Val.dict (seq r)))

/-- `(k, v)` entry of a dict display or comprehension. -/
def entry (k v : Val) : Val := Val.pair k v

/-- Items of a 2-element list/tuple (as `dict(pairs)` unpacks them). -/
def asPair (v : Val) : Option Val :=
  bindO (iter v) (fun l => match l with
    | List.cons a (List.cons b List.nil) => Option.some (Val.pair a b)
    | _ => Option.none)

/-! ## Builtins -/

def rangeList (start stop step : Int) : Option (List Val) :=
  cond (isZero step) Option.none
    (let cnt := cond (isNeg step)
        (cond (Int.blt stop start) (Int.add (Int.fdiv (Int.sub (Int.sub start stop) (Int.ofNat 1)) (Int.neg step)) (Int.ofNat 1)) (Int.ofNat 0))
        (cond (Int.blt start stop) (Int.add (Int.fdiv (Int.sub (Int.sub stop start) (Int.ofNat 1)) step) (Int.ofNat 1)) (Int.ofNat 0))
     Option.some (Nat.rec (motive := fun _ => Int → List Val) (fun _ => List.nil)
       (fun _ ih i => List.cons (Val.int i) (ih (Int.add i step))) (toNat cnt) start))

/-- `range(...)` with 1, 2 or 3 arguments, materialized (only used where a list behaves the same). -/
def range (args : List Val) : Option (List Val) :=
  match args with
  | List.cons b List.nil => bindO (num b) (fun y => rangeList (Int.ofNat 0) y (Int.ofNat 1))
  | List.cons a (List.cons b List.nil) => bindO (num a) (fun x => bindO (num b) (fun y => rangeList x y (Int.ofNat 1)))
  | List.cons a (List.cons b (List.cons c List.nil)) => bindO (num a) (fun x => bindO (num b) (fun y =>
      bindO (num c) (fun z => rangeList x y z)))
  | _ => Option.none

def enumerate (v start : Val) : Option Val :=
  bindO (iter v) (fun l => bindO (num start) (fun s =>
    Option.some (mkList (List.rec (motive := fun _ => Int → List Val) (fun _ => List.nil)
      (fun x _ ih i => List.cons (mkTuple (List.cons (Val.int i) (List.cons x List.nil))) (ih (Int.add i (Int.ofNat 1))))
      l s))))

/-- `zip(*lists)`: tuples up to the shortest. -/
def zipL (ls : List (List Val)) : List Val :=
  let n := List.rec (motive := fun _ => Option Nat) Option.none
    (fun l _ ih => Option.some (match ih with
      | Option.none => len l
      | Option.some m => Nat.min (len l) m)) ls
  match n with
  | Option.none => List.nil
  | Option.some m => Nat.rec (motive := fun _ => Nat → List Val) (fun _ => List.nil)
      (fun _ ih i => List.cons (mkTuple (map (fun l => Option.getD (nth l i) Val.none) ls)) (ih (Nat.succ i))) m 0

def zip (args : List Val) : Option Val := bindO (mapO iter args) (fun ls => Option.some (mkList (zipL ls)))

def reversed (v : Val) : Option Val :=
  match v with
  | Val.set _ => Option.none
  | _ => bindO (iter v) (fun l => Option.some (mkList (rev l)))

def isSet (v : Val) : Bool := match v with
  | Val.set _ => Bool.true
  | _ => Bool.false

/-- The items of `v`, including a set's (only for builtins whose result does not depend on the
order: `sorted`/`min`/`max` without a key, `sum` of ints, `any`, `all`). -/
def iterU (v : Val) : Option (List Val) :=
  match v with
  | Val.set s => Option.some (elems s)
  | _ => iter v

def sum (v start : Val) : Option Val :=
  match start with
  | Val.str _ => Option.none
  | _ => match v with
    | Val.set s => bindO (num start) (fun n => bindO (mapO num (elems s)) (fun xs =>
        intV (List.rec (motive := fun _ => Int) n (fun x _ ih => Int.add x ih) xs)))
    | _ => bindO (iter v) (fun l => List.rec (motive := fun _ => Val → Option Val) (fun acc => Option.some acc)
        (fun x _ ih acc => bindO (add acc x) ih) l start)

def anyB (v : Val) : Option Val :=
  bindO (iterU v) (fun l => bindO (anyO truth l) (fun b => Option.some (Val.bool b)))

def allB (v : Val) : Option Val :=
  bindO (iterU v) (fun l => bindO (allO truth l) (fun b => Option.some (Val.bool b)))

def absV (v : Val) : Option Val := bindO (num v) (fun x => intV (cond (isNeg x) (Int.neg x) x))

/-- `min`/`max` over keyed items: `op` 0 keeps a new item when its key is `<` (min), 2 when `>` (max). -/
def best (op : Nat) (items : List (Prod Val Val)) : Option Val :=
  match items with
  | List.nil => Option.none
  | List.cons p rest => bindO (List.rec (motive := fun _ => Prod Val Val → Option (Prod Val Val))
      (fun b => Option.some b)
      (fun q _ ih b => branch (cmp op q.fst b.fst) (ih q) (ih b)) rest p) (fun r => Option.some r.snd)

def selfKeys (l : List Val) : List (Prod Val Val) := map (fun x => Prod.mk x x) l

/-- Keys paired with items: `keys` is the list of key values (from the compiled key function). -/
def withKeys (keys : Val) (l : List Val) : Option (List (Prod Val Val)) :=
  bindO (iter keys) (fun ks => cond (Nat.beq (len ks) (len l))
    (Option.some (List.rec (motive := fun _ => List Val → List (Prod Val Val)) (fun _ => List.nil)
      (fun k _ ih l => match l with
        | List.nil => List.nil
        | List.cons x xs => List.cons (Prod.mk k x) (ih xs)) ks l))
    Option.none)

/-- The "shape" of a sort key: sorting is defined here only when all keys have one shape, so
that any comparison sort performs no failing comparison and gives CPython's (stable) order. -/
inductive Shape where
  | num : Shape
  | str : Shape
  | seqOf (isList : Bool) (cols : List Shape) : Shape
  | any : Shape

def shapeStep (sh : Val → Option Shape) (v : Val) : Option Shape :=
  match v with
  | Val.int _ => Option.some Shape.num
  | Val.bool _ => Option.some Shape.num
  | Val.str _ => Option.some Shape.str
  | Val.list s => bindO (mapO sh (elems s)) (fun c => Option.some (Shape.seqOf Bool.true c))
  | Val.tuple s => bindO (mapO sh (elems s)) (fun c => Option.some (Shape.seqOf Bool.false c))
  | _ => Option.none

def shapeOf (v : Val) : Option Shape := nest (fun _ => Option.none) shapeStep v

/-- Join two shapes (`none` when they cannot be compared safely). -/
def joinStep (j : Shape → Shape → Option Shape) (a b : Shape) : Option Shape :=
  match a, b with
  | Shape.any, x => Option.some x
  | x, Shape.any => Option.some x
  | Shape.num, Shape.num => Option.some Shape.num
  | Shape.str, Shape.str => Option.some Shape.str
  | Shape.seqOf l1 c1, Shape.seqOf l2 c2 => cond (boolEq l1 l2)
      (bindO (List.rec (motive := fun _ => List Shape → Option (List Shape)) (fun r => Option.some r)
        (fun x _ ih r => match r with
          | List.nil => bindO (ih List.nil) (fun t => Option.some (List.cons x t))
          | List.cons y ys => bindO (j x y) (fun z => bindO (ih ys) (fun t => Option.some (List.cons z t)))) c1 c2)
        (fun c => Option.some (Shape.seqOf l1 c)))
      Option.none
  | _, _ => Option.none

def joinShape (a b : Shape) : Option Shape := nest (fun _ _ => Option.none) joinStep a b

def uniformKeys (l : List (Prod Val Val)) : Option Unit :=
  bindO (List.rec (motive := fun _ => Option Shape) (Option.some Shape.any)
    (fun p _ ih => bindO ih (fun s => bindO (shapeOf p.fst) (fun t => joinShape s t))) l) (fun _ => Option.some Unit.unit)

def minmax (op : Nat) (v : Val) (keys : Val) (dflt : Option Val) : Option Val :=
  bindO (iterU v) (fun l => match l with
    | List.nil => dflt
    | List.cons _ _ => match keys with
      | Val.none => bindO (cond (isSet v) (uniformKeys (selfKeys l)) (Option.some Unit.unit)) (fun _ =>
          best op (selfKeys l))
      | _ => cond (isSet v) Option.none (bindO (withKeys keys l) (fun ps => best op ps)))

/-- Stable merge by key `<` (only called on uniform keys, so `cmp` never fails there). -/
def lessKey (a b : Prod Val Val) : Bool := Option.getD (cmp 0 a.fst b.fst) Bool.false

def merge (fuel : Nat) : List (Prod Val Val) → List (Prod Val Val) → List (Prod Val Val) :=
  Nat.rec (motive := fun _ => List (Prod Val Val) → List (Prod Val Val) → List (Prod Val Val))
    (fun a b => app a b)
    (fun _ ih a b => match a, b with
      | List.nil, _ => b
      | _, List.nil => a
      | List.cons x xs, List.cons y ys => cond (lessKey y x) (List.cons y (ih a ys)) (List.cons x (ih xs b)))
    fuel

def msort (fuel : Nat) (l : List (Prod Val Val)) : List (Prod Val Val) :=
  Nat.rec (motive := fun _ => List (Prod Val Val) → List (Prod Val Val)) (fun l => l)
    (fun _ ih l => match l with
      | List.nil => List.nil
      | List.cons x List.nil => List.cons x List.nil
      | List.cons _ (List.cons _ _) => let h := Nat.div (len l) 2
          merge (len l) (ih (take l h)) (ih (drop l h))) fuel l

/-- `sorted(v, key=..., reverse=...)`; `keys` is `none` or the list of key values. -/
def sorted (v : Val) (keys : Val) (reverse : Val) : Option Val :=
  bindO (iterU v) (fun l => bindO (truth reverse) (fun r =>
    bindO (match keys with
      | Val.none => Option.some (selfKeys l)
      | _ => cond (isSet v) Option.none (withKeys keys l)) (fun ps => bindO (uniformKeys ps) (fun _ =>
    let n := len ps
    Option.some (mkList (map (fun p => p.snd)
      (cond r (rev (msort n (rev ps))) (msort n ps))))))))

def listOf (v : Val) : Option Val := bindO (iter v) (fun l => Option.some (mkList l))
def tupleOf (v : Val) : Option Val := bindO (iter v) (fun l => Option.some (mkTuple l))
def setOf (v : Val) : Option Val :=
  match v with
  | Val.set s => Option.some (Val.set s)
  | _ => bindO (iter v) mkSet

def dictOf (v : Val) : Option Val :=
  match v with
  | Val.dict s => Option.some (Val.dict s)
  | _ => bindO (iter v) (fun l => bindO (mapO asPair l) mkDict)

def lenV (v : Val) : Option Val := bindO (lenOf v) (fun n => Option.some (natV n))
def boolV (v : Val) : Option Val := bindO (truth v) (fun b => Option.some (Val.bool b))

def reprStep (r : Val → Option (List Char)) (v : Val) : Option (List Char) :=
  let items := fun (l : List Val) => bindO (mapO r l) (fun ps => Option.some (joinWith (lit ", ") ps))
  match v with
  | Val.none => Option.some (lit "None")
  | Val.bool b => Option.some (cond b (lit "True") (lit "False"))
  | Val.int i => intStr i
  | Val.str s => strRepr s.data
  | Val.list s => bindO (items (elems s)) (fun t => Option.some (app (lit "[") (app t (lit "]"))))
  | Val.tuple s => let l := elems s
      bindO (items l) (fun t => Option.some (app (lit "(") (app t (cond (Nat.beq (len l) 1) (lit ",)") (lit ")")))))
  | Val.dict s => bindO (mapO (fun e => bindO (r (key e)) (fun a => bindO (r (value e)) (fun b =>
        Option.some (app a (app (lit ": ") b))))) (elems s))
      (fun ps => Option.some (app (lit "{") (app (joinWith (lit ", ") ps) (lit "}"))))
  | Val.set s => match elems s with
    | List.nil => Option.some (lit "set()")
    | List.cons _ _ => Option.none
  | _ => Option.none

/-- `repr(v)` (strings ASCII only; non-empty sets are outside the subset: their order). -/
def repr (v : Val) : Option (List Char) := nest (fun _ => Option.none) reprStep v

/-- `str(v)`. -/
def strOf (v : Val) : Option Val :=
  match v with
  | Val.str s => Option.some (Val.str s)
  | _ => bindO (repr v) (fun l => Option.some (mkStr l))

def reprV (v : Val) : Option Val := bindO (repr v) (fun l => Option.some (mkStr l))

/-- `int(v)` for an int, bool or str (base 10). -/
def intOf (v : Val) : Option Val :=
  match v with
  | Val.str s => bindO (parseInt s.data) intV
  | _ => bindO (num v) intV

def ord (v : Val) : Option Val :=
  match v with
  | Val.str s => match s.data with
    | List.cons c List.nil => Option.some (natV c.val)
    | _ => Option.none
  | _ => Option.none

def chr (v : Val) : Option Val :=
  bindO (num v) (fun i => match i with
    | Int.ofNat n => cond (Bool.and (Nat.ble n 1114111) (Bool.not (Bool.and (Nat.ble 55296 n) (Nat.ble n 57343))))
        (Option.some (charStr (Char.ofNat n))) Option.none
    | Int.negSucc _ => Option.none)

def divmod (a b : Val) : Option Val :=
  bindO (floordiv a b) (fun q => bindO (mod a b) (fun r => Option.some (mkTuple (List.cons q (List.cons r List.nil)))))

/-- Concatenation of `str()` pieces (f-strings). -/
def fstr (parts : List Val) : Option Val :=
  bindO (mapO (fun p => bindO (strOf p) (fun s => match s with
    | Val.str t => Option.some t.data
    | _ => Option.none)) parts) (fun ps => Option.some (mkStr (List.rec (motive := fun _ => List Char) List.nil
      (fun p _ ih => app p ih) ps)))

/-! ## Methods -/

def strArg (v : Val) : Option (List Char) := match v with
  | Val.str s => Option.some s.data
  | _ => Option.none

def listArg (v : Val) : Option (List Val) := match v with
  | Val.list s => Option.some (elems s)
  | _ => Option.none

def stripChars (chars : Val) : Option (Char → Option Bool) :=
  match chars with
  | Val.none => Option.some spaceO
  | Val.str t => Option.some (fun c => Option.some (memChar c t.data))
  | _ => Option.none

def strip (which : Nat) (s chars : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (stripChars chars) (fun p =>
    bindO (cond (Nat.beq which 2) (Option.some l) (dropWhileO p l)) (fun a =>
    bindO (cond (Nat.beq which 1) (Option.some (rev a)) (dropWhileO p (rev a))) (fun b =>
      Option.some (mkStr (rev b))))))

def split (s sep : Val) : Option Val :=
  bindO (strArg s) (fun l => match sep with
    | Val.none => bindO (splitWs l) (fun ps => Option.some (mkList (map mkStr ps)))
    | Val.str t => cond (List.isEmpty t.data) Option.none
        (Option.some (mkList (map mkStr (splitSep t.data (Nat.succ (len l)) l))))
    | _ => Option.none)

def join (sep items : Val) : Option Val :=
  bindO (strArg sep) (fun s => bindO (iter items) (fun l => bindO (mapO strArg l) (fun ps =>
    Option.some (mkStr (joinWith s ps)))))

def replace (s old new : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (strArg old) (fun o => bindO (strArg new) (fun n =>
    Option.some (mkStr (match o with
      | List.nil => app n (List.rec (motive := fun _ => List Char) List.nil (fun c _ ih => List.cons c (app n ih)) l)
      | List.cons _ _ => replaceSub o n (Nat.succ (len l)) l)))))

def findM (s sub : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (strArg sub) (fun t => Option.some (match find l t with
    | Option.none => Val.int (Int.negSucc 0)
    | Option.some i => natV i)))

def strIndex (s sub : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (strArg sub) (fun t => bindO (find l t) (fun i => Option.some (natV i))))

def countStr (s sub : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (strArg sub) (fun t => Option.some (natV (match t with
    | List.nil => Nat.succ (len l)
    | List.cons _ _ => countSub t (Nat.succ (len l)) l))))

def affix (suffix : Bool) (s p : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (match p with
    | Val.tuple t => mapO strArg (elems t)
    | _ => bindO (strArg p) (fun x => Option.some (List.cons x List.nil))) (fun ps =>
    Option.some (Val.bool (List.any (fun q => cond suffix (startsWith (rev l) (rev q)) (startsWith l q)) ps))))

def caseMap (up : Bool) (s : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (mapAscii (cond up upperC lowerC) l) (fun r => Option.some (mkStr r)))

/-- `isdigit`, `isalpha`, `isalnum`, `isspace` (0..3): non-empty and every char passes. -/
def strTest (which : Nat) (s : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (mapO (fun c => cond (isAscii c) (Option.some (match which with
      | 0 => isDigitA c
      | 1 => isAlphaA c
      | 2 => Bool.or (isDigitA c) (isAlphaA c)
      | _ => isSpaceA c)) Option.none) l) (fun bs =>
    Option.some (Val.bool (Bool.and (Bool.not (List.isEmpty l)) (List.all id bs)))))

/-- `isupper` (up) / `islower`: some cased char, and no cased char of the other case. -/
def caseTest (up : Bool) (s : Val) : Option Val :=
  bindO (strArg s) (fun l => bindO (mapO (fun c => cond (isAscii c) (Option.some c) Option.none) l) (fun _ =>
    Option.some (Val.bool (Bool.and (List.any isAlphaA l)
      (Bool.not (List.any (cond up isLowerA isUpperA) l))))))

def indexOf (s x : Val) : Option Val :=
  bindO (iter s) (fun l => bindO (List.rec (motive := fun _ => Nat → Option (Option Nat)) (fun _ => Option.some Option.none)
    (fun y _ ih i => branch (eq y x) (Option.some (Option.some i)) (ih (Nat.succ i))) l 0) (fun o =>
    bindO o (fun i => Option.some (natV i))))

def countOf (s x : Val) : Option Val :=
  bindO (iter s) (fun l => bindO (mapO (fun y => eq y x) l) (fun bs =>
    Option.some (natV (len (List.rec (motive := fun _ => List Bool) List.nil (fun b _ ih => cond b (List.cons b ih) ih) bs)))))

def dictGet (d k dflt : Val) : Option Val :=
  match d with
  | Val.dict s => bindO (needHash k) (fun _ => bindO (lookupBy eq k (elems s)) (fun o => Option.some (Option.getD o dflt)))
  | _ => Option.none

def dictKeys (d : Val) : Option Val := match d with
  | Val.dict s => Option.some (mkList (map key (elems s)))
  | _ => Option.none

def dictValues (d : Val) : Option Val := match d with
  | Val.dict s => Option.some (mkList (map value (elems s)))
  | _ => Option.none

def dictItems (d : Val) : Option Val := match d with
  | Val.dict s => Option.some (mkList (map (fun e => mkTuple (List.cons (key e) (List.cons (value e) List.nil))) (elems s)))
  | _ => Option.none

/-! ## Mutating methods (value semantics: they return the new container)

The compiler only allows them on variables the function owns (see `docs/spec-language.md`),
which makes value semantics and CPython's reference semantics agree. -/

def append (x v : Val) : Option Val := match x with
  | Val.list s => Option.some (Val.list (Val.cat s (Val.one v)))
  | _ => Option.none

/-- `x.extend(it)` and `x += it` on a list (any iterable). -/
def extend (x it : Val) : Option Val := match x with
  | Val.list s => bindO (iter it) (fun l => Option.some (Val.list (Val.cat s (seq l))))
  | _ => Option.none

/-- `x += y`: in-place for lists (extend), otherwise `x + y`. -/
def iadd (x y : Val) : Option Val := match x with
  | Val.list _ => extend x y
  | _ => add x y

/-- `x.insert(i, v)`: index clamped like CPython. -/
def insert (x i v : Val) : Option Val := match x with
  | Val.list s => bindO (num i) (fun k => let l := elems s
      let n := Int.ofNat (len l)
      let j := cond (isNeg k) (imax (Int.add k n) (Int.ofNat 0)) (imin k n)
      Option.some (mkList (app (take l (toNat j)) (List.cons v (drop l (toNat j))))))
  | _ => Option.none

/-- `x.pop(i)` / `x.pop()` (`i = none`): the new list and the removed item. -/
def pop (x i : Val) : Option (Prod Val Val) := match x with
  | Val.list s => let l := elems s
      bindO (match i with
        | Val.none => Option.some (Int.negSucc 0)
        | _ => num i) (fun k => bindO (normIdx (len l) k) (fun j => bindO (nth l j) (fun y =>
        Option.some (Prod.mk (mkList (app (take l j) (drop l (Nat.succ j)))) y))))
  | _ => Option.none

def popFst (p : Option (Prod Val Val)) : Option Val := bindO p (fun q => Option.some q.fst)
def popSnd (p : Option (Prod Val Val)) : Option Val := bindO p (fun q => Option.some q.snd)

/-- `x.remove(v)`: the first item equal to `v` (ValueError when there is none). -/
def remove (x v : Val) : Option Val := match x with
  | Val.list s => bindO (indexOf x v) (fun iv => bindO (num iv) (fun k => let l := elems s
      let j := toNat k
      Option.some (mkList (app (take l j) (drop l (Nat.succ j))))))
  | Val.set s => let l := elems s
      bindO (mapO (fun e => bindO (eq v e) (fun t => Option.some (Prod.mk e t))) l) (fun marks =>
        cond (List.any (fun p => p.snd) marks)
          (Option.some (Val.set (seq (List.rec (motive := fun _ => List Val) List.nil
            (fun p _ ih => cond p.snd ih (List.cons p.fst ih)) marks))))
          Option.none)
  | _ => Option.none

def discard (x v : Val) : Option Val := match x with
  | Val.set s => bindO (needHash v) (fun _ => bindO (memBy eq v (elems s)) (fun m => cond m (remove x v) (Option.some x)))
  | _ => Option.none

def addElem (x v : Val) : Option Val := match x with
  | Val.set s => bindO (setAdd (elems s) v) (fun r => Option.some (Val.set (seq r)))
  | _ => Option.none

def sortList (x keys reverse : Val) : Option Val := match x with
  | Val.list _ => sorted x keys reverse
  | _ => Option.none

def reverseList (x : Val) : Option Val := match x with
  | Val.list s => Option.some (mkList (rev (elems s)))
  | _ => Option.none

def clear (x : Val) : Option Val := match x with
  | Val.list _ => Option.some (Val.list Val.nil)
  | Val.dict _ => Option.some (Val.dict Val.nil)
  | Val.set _ => Option.some (Val.set Val.nil)
  | _ => Option.none

def copy (x : Val) : Option Val := match x with
  | Val.list s => Option.some (Val.list s)
  | Val.dict s => Option.some (Val.dict s)
  | Val.set s => Option.some (Val.set s)
  | _ => Option.none

/-! ## Compiled-code helpers -/

/-- Take the next argument (compiled function prologue). -/
def arg (a : List Val) (k : Val → List Val → Option Res) : Option Res :=
  match a with
  | List.nil => Option.none
  | List.cons x r => k x r

def argEnd (a : List Val) (k : Option Res) : Option Res :=
  match a with
  | List.nil => k
  | List.cons _ _ => Option.none

/-- Unpack `v` into exactly `n` items (`a, b = v`). -/
def unpack (v : Val) (n : Nat) (k : List Val → Option Res) : Option Res :=
  match iter v with
  | Option.none => Option.none
  | Option.some l => cond (Nat.beq (len l) n) (k l) Option.none

/-- Pick function `i` of a table. -/
def table (fs : List (List Val → Option Res)) (i : Nat) (args : List Val) : Option Res :=
  match nth fs i with
  | Option.none => Option.none
  | Option.some f => f args

/-- `for x in xs: body` where `body` gets the item, the state and continuations for the next
item (`next`) and for leaving the loop (`exit`, used by `break` and at the end). -/
def forList (xs : List Val) {S : Type} (body : Val → S → (S → Option Res) → Option Res)
    (exit : S → Option Res) (st : S) : Option Res :=
  List.rec (motive := fun _ => S → Option Res) exit (fun x _ ih st => body x st ih) xs st

/-- The function table of a compiled spec: `body` receives the table one fuel level down, so
calls nest at most `fuel` deep. -/
def fix (fuel : Nat) (body : (Nat → List Val → Option Res) → Nat → List Val → Option Res) :
    Nat → List Val → Option Res :=
  Nat.rec (motive := fun _ => Nat → List Val → Option Res) (fun _ _ => Option.none) (fun _ r => body r) fuel

/-- A `while` loop: `step next` tests the condition once and continues with `next` (one fuel
level down); after `fuel` tests the loop is `stop` (out of fuel). `α` is the state-passing type. -/
def loop {α : Type} (fuel : Nat) (stop : α) (step : α → α) : α :=
  Nat.rec (motive := fun _ => α) stop (fun _ r => step r) fuel

/-- A `for` loop over the items: `body x next` runs one iteration, `exit` follows the last. -/
def forEach {α : Type} (xs : List Val) (exit : α) (body : Val → α → α) : α :=
  List.rec (motive := fun _ => α) exit (fun x _ ih => body x ih) xs

/-- Flat-map for comprehensions: each item gives a (possibly empty) segment of the result. -/
def flatMap (xs : List Val) (f : Val → Option Res) : Option Res :=
  List.rec (motive := fun _ => Option Res) (ret Val.nil)
    (fun x _ ih => bindE (f x) (fun a => bindE ih (fun b => ret (Val.cat a b)))) xs

/-- `any`/`all` over a generator, stopping at the first decisive item like CPython. -/
def anyGen (wantTrue : Bool) (xs : List Val) (f : Val → Option Res) : Option Res :=
  List.rec (motive := fun _ => Option Res) (ret (Val.bool (Bool.not wantTrue)))
    (fun x _ ih => bindE (f x) (fun v => match truth v with
      | Option.none => Option.none
      | Option.some t => cond (boolEq t wantTrue) (ret (Val.bool wantTrue)) ih)) xs

/-- Map a compiled key function over items (`sorted(..., key=f)`, `min(..., key=f)`). -/
def mapE (f : Val → Option Res) (xs : List Val) : Option Res :=
  List.rec (motive := fun _ => Option Res) (ret Val.nil)
    (fun x _ ih => bindE (f x) (fun a => bindE ih (fun b => ret (Val.cat (Val.one a) b)))) xs

/-- The key list returned by `mapE` as a list value. -/
def keysOf (t : Val) : Val := Val.list t

def listOfSeg (t : Val) : Option Val := Option.some (Val.list t)
def setOfSeg (t : Val) : Option Val := mkSet (elems t)
def dictOfSeg (t : Val) : Option Val := mkDict (elems t)


/-! ## Helpers the compiler calls by name -/

def listV (l : List Val) : Option Val := Option.some (mkList l)
def entryV (k v : Val) : Option Val := Option.some (Val.pair k v)
def tupleV (l : List Val) : Option Val := Option.some (mkTuple l)
def rangeV (args : List Val) : Option Val := bindO (range args) (fun l => Option.some (mkList l))

/-- `none` unless `v` is immutable (`x op= y` on a variable the function does not own). -/
def immutable (v : Val) : Option Val :=
  match v with
  | Val.list _ => Option.none
  | Val.dict _ => Option.none
  | Val.set _ => Option.none
  | _ => Option.some v

/-- `s.count(x)`: substring count on a str, item count on a list or tuple. -/
def countAny (s x : Val) : Option Val :=
  match s with
  | Val.str _ => countStr s x
  | Val.list _ => countOf s x
  | Val.tuple _ => countOf s x
  | _ => Option.none

/-- `s.index(x)`: on a str, a list or a tuple (ValueError when absent). -/
def indexAny (s x : Val) : Option Val :=
  match s with
  | Val.str _ => strIndex s x
  | Val.list _ => indexOf s x
  | Val.tuple _ => indexOf s x
  | _ => Option.none

/-! ## Canonical classes (the representative `specguard.values.canon` computes)

`canon v` is the representative of `v`'s class under `==` exactly as SpecGuard's Python side
writes test values: `bool` becomes `int`; sequences are balanced trees split at the midpoint;
dict entries and set elements are sorted by `repr(to_json(key))` (`jrepr`).  It is `none`
whenever it cannot be computed exactly (e.g. a non-ASCII string that must be sorted). -/

def bal (fuel : Nat) : Nat → List Val → Val :=
  Nat.rec (motive := fun _ => Nat → List Val → Val) (fun _ _ => Val.nil)
    (fun _ ih n l => match n with
      | 0 => Val.nil
      | 1 => match l with
        | List.cons x _ => Val.one x
        | List.nil => Val.nil
      | _ => let h := Nat.div n 2
          Val.cat (ih h l) (ih (Nat.sub n h) (drop l h))) fuel

/-- The balanced tree of `specguard.emit.lean_seq` (left half `n / 2` elements). -/
def balanced (l : List Val) : Val := let n := len l
  bal n n l

def quoted (l : List Char) : List Char := app (lit "'") (app l (lit "'"))

def jtagged (tag : String) (body : List Char) : List Char :=
  app (lit "['") (app tag.data (app (lit "', ") (app body (lit "]"))))

def jlist (parts : List (List Char)) : List Char := app (lit "[") (app (joinWith (lit ", ") parts) (lit "]"))

def jreprStep (r : Val → Option (List Char)) (v : Val) : Option (List Char) :=
  match v with
  | Val.none => Option.some (lit "['none']")
  | Val.int i => bindO (intStr i) (fun d => Option.some (jtagged "int" (quoted d)))
  | Val.str s => bindO (strRepr s.data) (fun q => Option.some (jtagged "str" q))
  | Val.tuple s => bindO (mapO r (elems s)) (fun ps => Option.some (jtagged "tuple" (jlist ps)))
  | Val.list s => bindO (mapO r (elems s)) (fun ps => Option.some (jtagged "list" (jlist ps)))
  | Val.set s => bindO (mapO r (elems s)) (fun ps => Option.some (jtagged "set" (jlist ps)))
  | Val.dict s => bindO (mapO (fun e => bindO (r (key e)) (fun a => bindO (r (value e)) (fun b =>
      Option.some (jlist (List.cons a (List.cons b List.nil)))))) (elems s))
      (fun ps => Option.some (jtagged "dict" (jlist ps)))
  | _ => Option.none

/-- `repr(values.to_json(v))` for a canonical value: the sort key of dict keys and set elements. -/
def jrepr (v : Val) : Option (List Char) := nest (fun _ => Option.none) jreprStep v

/-- Sort items by their (distinct) string keys. -/
def sortByRepr (items : List (Prod (List Char) Val)) : List Val :=
  let ps := map (fun p => Prod.mk (mkStr p.fst) p.snd) items
  map (fun p => p.snd) (msort (len ps) ps)

def keyed (v : Val) : Option (Prod (List Char) Val) := bindO (jrepr v) (fun r => Option.some (Prod.mk r v))

def canonStep (c : Val → Option Val) (v : Val) : Option Val :=
  match v with
  | Val.int _ => Option.some v
  | Val.bool b => Option.some (Val.int (b2i b))
  | Val.none => Option.some Val.none
  | Val.str _ => Option.some v
  | Val.list s => bindO (mapO c (elems s)) (fun l => Option.some (Val.list (balanced l)))
  | Val.tuple s => bindO (mapO c (elems s)) (fun l => Option.some (Val.tuple (balanced l)))
  | Val.dict s => bindO (mapO (fun e => bindO (c (key e)) (fun k => bindO (c (value e)) (fun w =>
        bindO (jrepr k) (fun r => Option.some (Prod.mk r (Val.pair k w)))))) (elems s))
      (fun items => Option.some (Val.dict (balanced (sortByRepr items))))
  | Val.set s => bindO (mapO (fun e => bindO (c e) keyed) (elems s))
      (fun items => Option.some (Val.set (balanced (sortByRepr items))))
  | _ => Option.none

def canon (v : Val) : Option Val := nest (fun _ => Option.none) canonStep v

/-- Run function `i` of a compiled table and canonicalize a returned value (used by tests). -/
def runCanon (prog : Nat → List Val → Option Res) (i : Nat) (args : List Val) : Option Res :=
  match prog i args with
  | Option.some (Res.ret v) => bindO (canon v) (fun c => Option.some (Res.ret c))
  | r => r

/-! ## Specs

A spec names (by index in its compiled function table) an optional `pre`, `raises`, `reference`
and `post`.  At an input `k` (the exact test input `pair (tuple args) (str target)`):

* not a positional call of `entry` with an acceptable number of arguments: nothing is said;
* `pre(*args)` not truthy (or failing): nothing is said;
* `raises(*args)` returns a str: the call raises (some exception); returns None: go on;
* `reference(*args)` returns `v`: the call returns a value of `v`'s class; raises explicitly:
  the call raises;
* otherwise, with `post`: the call returns a value whose class, rebuilt as the annotated type
  of `post`'s last parameter (`PTy`), satisfies `post(*args, result)` (or returns `junk`, a
  non-Python value: see `docs/spec-language.md`).

Every failure (fuel, an implicit error, a case outside the subset) makes the spec say nothing. -/

/-- The annotated type of `post`'s `result` parameter: how a class (where `True` is `1`) is
turned back into the value an implementation of that type returns. -/
inductive PTy where
  | int : PTy
  | bool : PTy
  | str : PTy
  | none : PTy
  | list (t : PTy) : PTy
  | tupleOf (t : PTy) : PTy
  | tuple (ts : PTy) : PTy
  | opt (t : PTy) : PTy
  | nil : PTy
  | cons (t rest : PTy) : PTy

mutual
def fromClass : PTy → Val → Option Val
  | PTy.int, v => match v with
    | Val.int _ => Option.some v
    | _ => Option.none
  | PTy.bool, v => match v with
    | Val.int i => cond (isZero i) (Option.some (Val.bool Bool.false))
        (cond (Int.beq i (Int.ofNat 1)) (Option.some (Val.bool Bool.true)) Option.none)
    | _ => Option.none
  | PTy.str, v => match v with
    | Val.str _ => Option.some v
    | _ => Option.none
  | PTy.none, v => match v with
    | Val.none => Option.some v
    | _ => Option.none
  | PTy.list t, v => match v with
    | Val.list s => bindO (mapO (fromClass t) (elems s)) (fun l => Option.some (Val.list (balanced l)))
    | _ => Option.none
  | PTy.tupleOf t, v => match v with
    | Val.tuple s => bindO (mapO (fromClass t) (elems s)) (fun l => Option.some (Val.tuple (balanced l)))
    | _ => Option.none
  | PTy.tuple ts, v => match v with
    | Val.tuple s => bindO (fromClasses ts (elems s)) (fun l => Option.some (Val.tuple (balanced l)))
    | _ => Option.none
  | PTy.opt t, v => match v with
    | Val.none => Option.some v
    | _ => fromClass t v
  | _, _ => Option.none
def fromClasses : PTy → List Val → Option (List Val)
  | PTy.cons t rest, l => match l with
    | List.cons x xs => bindO (fromClass t x) (fun y => bindO (fromClasses rest xs) (fun ys => Option.some (List.cons y ys)))
    | List.nil => Option.none
  | _, l => match l with
    | List.nil => Option.some List.nil
    | List.cons _ _ => Option.none
end

structure Spec where
  /-- the compiled function table (fuel already applied) -/
  prog : Nat → List Val → Option Res
  /-- the name tests call -/
  entry : String
  /-- positional parameters of the spec functions -/
  nparams : Nat
  /-- default values of the last parameters -/
  defaults : List Val
  pre : Option Nat
  raises : Option Nat
  ref : Option Nat
  post : Option Nat
  postTy : PTy
  /-- JSON-table tasks compare the JSON view of results (tuples read as lists, dict keys as
  strings): the spec then speaks only of results whose JSON view is themselves. -/
  json : Bool

/-- The positional arguments of `k` for `s`'s entry point, defaults filled in. -/
def argsOf (s : Spec) (k : Val) : Option (List Val) :=
  match k with
  | Val.pair (Val.tuple t) (Val.str n) => cond (charsEq n.data s.entry.data)
      (let a := elems t
       let m := len a
       let need := Nat.sub s.nparams (len s.defaults)
       cond (Bool.and (Nat.ble need m) (Nat.ble m s.nparams))
         (Option.some (app a (drop s.defaults (Nat.sub m need))))
         Option.none)
      Option.none
  | _ => Option.none

/-- What the spec says at one input. -/
inductive Out where
  | eq (c : Val) : Out
  | raises : Out
  | post (args : List Val) : Out

def preOk (s : Spec) (a : List Val) : Option Unit :=
  match s.pre with
  | Option.none => Option.some Unit.unit
  | Option.some i => match s.prog i a with
    | Option.some (Res.ret v) => match truth v with
      | Option.some Bool.true => Option.some Unit.unit
      | _ => Option.none
    | _ => Option.none

/-- `some true`: must raise; `some false`: `raises` returned None; `none`: nothing is said. -/
def raisesSays (s : Spec) (a : List Val) : Option Bool :=
  match s.raises with
  | Option.none => Option.some Bool.false
  | Option.some i => match s.prog i a with
    | Option.some (Res.ret v) => match v with
      | Val.str _ => Option.some Bool.true
      | Val.none => Option.some Bool.false
      | _ => Option.none
    | _ => Option.none

def jsonStep (j : Val → Bool) (v : Val) : Bool :=
  match v with
  | Val.none => Bool.true
  | Val.int _ => Bool.true
  | Val.str _ => Bool.true
  | Val.list s => List.all j (elems s)
  | Val.dict s => List.all (fun e => Bool.and (match key e with
      | Val.str _ => Bool.true
      | _ => Bool.false) (j (value e))) (elems s)
  | _ => Bool.false

/-- A canonical class that is its own JSON view (no tuple, set, or non-str dict key). -/
def jsonSafe (v : Val) : Bool := nest (fun _ => Bool.false) jsonStep v

def hasTuple : PTy → Bool
  | PTy.tupleOf _ => Bool.true
  | PTy.tuple _ => Bool.true
  | PTy.list t => hasTuple t
  | PTy.opt t => hasTuple t
  | _ => Bool.false

def refOut (s : Spec) (a : List Val) : Option Out :=
  match s.ref with
  | Option.some i => match s.prog i a with
    | Option.some (Res.ret v) => bindO (canon v) (fun c =>
        cond (Bool.and s.json (Bool.not (jsonSafe c))) Option.none (Option.some (Out.eq c)))
    | Option.some (Res.raise _) => Option.some Out.raises
    | Option.none => Option.none
  | Option.none => match s.post with
    | Option.some _ => cond (Bool.and s.json (hasTuple s.postTy)) Option.none (Option.some (Out.post a))
    | Option.none => Option.none

def outcome (s : Spec) (k : Val) : Option Out :=
  bindO (argsOf s k) (fun a => bindO (preOk s a) (fun _ =>
    branch (raisesSays s a) (Option.some Out.raises) (refOut s a)))

/-- `post(*args, result)` for the class `c` of a returned value. -/
def postCheck (s : Spec) (a : List Val) (c : Val) : Bool :=
  match s.post with
  | Option.none => Bool.true
  | Option.some i => match fromClass s.postTy c with
    | Option.none => Bool.false
    | Option.some x => match s.prog i (app a (List.cons x List.nil)) with
      | Option.some (Res.ret v) => Option.getD (truth v) Bool.true
      | _ => Bool.true

/-- An outcome no Python implementation has (pairs only occur inside dict trees). -/
def junk : Val := Val.pair Val.none Val.none

def satOut (s : Spec) (o : Option Out) (r : Outcome) : Prop :=
  match o with
  | Option.none => True
  | Option.some x => match x with
    | Out.eq c => Eq r (Outcome.ret c)
    | Out.raises => Eq (Outcome.raises r) Bool.true
    | Out.post a => Or (Eq r (Outcome.ret junk)) (Eq (Outcome.returns (postCheck s a) r) Bool.true)

/-- The spec's clause at input `k` for the outcome `r` of the implementation there. -/
def Sat (s : Spec) (k : Val) (r : Outcome) : Prop := satOut s (outcome s k) r

/-- An outcome the spec allows at `k` (witness implementations use it off their tables). -/
def selfOut (o : Option Out) : Outcome :=
  match o with
  | Option.none => Outcome.raise "SpecGuardWitness"
  | Option.some x => match x with
    | Out.eq c => Outcome.ret c
    | Out.raises => Outcome.raise "SpecGuardWitness"
    | Out.post _ => Outcome.ret junk

def self (s : Spec) (k : Val) : Outcome := selfOut (outcome s k)

def satOutB (s : Spec) (o : Option Out) (r : Outcome) : Bool :=
  match o with
  | Option.none => Bool.true
  | Option.some x => match x with
    | Out.eq c => Outcome.beq r (Outcome.ret c)
    | Out.raises => Outcome.raises r
    | Out.post a => Bool.or (Outcome.beq r (Outcome.ret junk)) (Outcome.returns (postCheck s a) r)

def allSat (s : Spec) : List (Prod Val Outcome) → Bool
  | List.nil => Bool.true
  | List.cons (Prod.mk k o) rest => Bool.and (satOutB s (outcome s k) o) (allSat s rest)

/-! ## Lemmas -/

theorem congr2 {α β γ : Type} (f : α → β → γ) {a a' : α} {b b' : β} (ha : Eq a a') (hb : Eq b b') :
    Eq (f a b) (f a' b') :=
  Eq.ndrec (motive := fun x => Eq (f a b) (f x b')) (congrArg (f a) hb) ha

theorem boolEq_eq : (a b : Bool) → Eq (boolEq a b) Bool.true → Eq a b
  | Bool.true, Bool.true, _ => Eq.refl _
  | Bool.false, Bool.false, _ => Eq.refl _
  | Bool.true, Bool.false, h => False.elim (Bool.false_ne_true h)
  | Bool.false, Bool.true, h => False.elim (Bool.false_ne_true h)

theorem Int.eq_of_beq : (a b : Int) → Eq (Int.beq a b) Bool.true → Eq a b
  | Int.ofNat m, Int.ofNat n, h => congrArg Int.ofNat (Nat.eq_of_beq_eq_true m n h)
  | Int.negSucc m, Int.negSucc n, h => congrArg Int.negSucc (Nat.eq_of_beq_eq_true m n h)
  | Int.ofNat _, Int.negSucc _, h => False.elim (Bool.false_ne_true h)
  | Int.negSucc _, Int.ofNat _, h => False.elim (Bool.false_ne_true h)

theorem Char.eq_of_beq (a b : Char) (h : Eq (Char.beq a b) Bool.true) : Eq a b :=
  congrArg Char.mk (Nat.eq_of_beq_eq_true a.val b.val h)

theorem List.eq_of_beqBy {α : Type} (f : α → α → Bool) (hf : ∀ x y, Eq (f x y) Bool.true → Eq x y) :
    (l1 l2 : List α) → Eq (List.beqBy f l1 l2) Bool.true → Eq l1 l2
  | List.nil, List.nil, _ => Eq.refl _
  | List.cons a as, List.cons b bs, h =>
    congr2 List.cons (hf a b (eq_true_of_and_left h)) (List.eq_of_beqBy f hf as bs (eq_true_of_and_right h))
  | List.nil, List.cons _ _, h => False.elim (Bool.false_ne_true h)
  | List.cons _ _, List.nil, h => False.elim (Bool.false_ne_true h)

theorem String.eq_of_beq (a b : String) (h : Eq (String.beq a b) Bool.true) : Eq a b :=
  congrArg String.ofList (List.eq_of_beqBy Char.beq Char.eq_of_beq a.data b.data h)

theorem Val.eq_of_beq : (a b : Val) → Eq (Val.beq a b) Bool.true → Eq a b
  | Val.none, Val.none => fun _ => Eq.refl _
  | Val.none, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.none, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool x0, Val.bool y0 => fun h => congrArg Val.bool (boolEq_eq x0 y0 h)
  | Val.bool _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bool _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int x0, Val.int y0 => fun h => congrArg Val.int (Int.eq_of_beq x0 y0 h)
  | Val.int _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.int _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float x0, Val.float y0 => fun h => congrArg Val.float (Nat.eq_of_beq_eq_true x0 y0 h)
  | Val.float _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.float _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat x0 x1, Val.rat y0 y1 => fun h => congr2 Val.rat (Int.eq_of_beq x0 y0 (eq_true_of_and_left h)) (Nat.eq_of_beq_eq_true x1 y1 (eq_true_of_and_right h))
  | Val.rat _ _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.rat _ _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf x0, Val.inf y0 => fun h => congrArg Val.inf (boolEq_eq x0 y0 h)
  | Val.inf _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.inf _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.nan => fun _ => Eq.refl _
  | Val.nan, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nan, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.str x0, Val.str y0 => fun h => congrArg Val.str (String.eq_of_beq x0 y0 h)
  | Val.str _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.str _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes x0, Val.bytes y0 => fun h => congrArg Val.bytes (String.eq_of_beq x0 y0 h)
  | Val.bytes _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.bytes _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.nil => fun _ => Eq.refl _
  | Val.nil, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.nil, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.one x0, Val.one y0 => fun h => congrArg Val.one (Val.eq_of_beq x0 y0 h)
  | Val.one _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.one _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat x0 x1, Val.cat y0 y1 => fun h => congr2 Val.cat (Val.eq_of_beq x0 y0 (eq_true_of_and_left h)) (Val.eq_of_beq x1 y1 (eq_true_of_and_right h))
  | Val.cat _ _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.cat _ _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair x0 x1, Val.pair y0 y1 => fun h => congr2 Val.pair (Val.eq_of_beq x0 y0 (eq_true_of_and_left h)) (Val.eq_of_beq x1 y1 (eq_true_of_and_right h))
  | Val.pair _ _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.pair _ _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list x0, Val.list y0 => fun h => congrArg Val.list (Val.eq_of_beq x0 y0 h)
  | Val.list _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.list _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple x0, Val.tuple y0 => fun h => congrArg Val.tuple (Val.eq_of_beq x0 y0 h)
  | Val.tuple _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.tuple _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict x0, Val.dict y0 => fun h => congrArg Val.dict (Val.eq_of_beq x0 y0 h)
  | Val.dict _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.dict _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.set x0, Val.set y0 => fun h => congrArg Val.set (Val.eq_of_beq x0 y0 h)
  | Val.set _, Val.frozenset _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.none => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.bool _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.int _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.float _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.rat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.inf _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.nan => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.str _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.bytes _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.nil => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.one _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.cat _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.pair _ _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.list _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.tuple _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.dict _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset _, Val.set _ => fun h => False.elim (Bool.false_ne_true h)
  | Val.frozenset x0, Val.frozenset y0 => fun h => congrArg Val.frozenset (Val.eq_of_beq x0 y0 h)
theorem Outcome.eq_of_beq : (a b : Outcome) → Eq (Outcome.beq a b) Bool.true → Eq a b
  | Outcome.ret x, Outcome.ret y, h => congrArg Outcome.ret (Val.eq_of_beq x y h)
  | Outcome.raise x, Outcome.raise y, h => congrArg Outcome.raise (String.eq_of_beq x y h)
  | Outcome.ret _, Outcome.raise _, h => False.elim (Bool.false_ne_true h)
  | Outcome.raise _, Outcome.ret _, h => False.elim (Bool.false_ne_true h)

theorem or_of_bor : (a b : Bool) → Eq (Bool.or a b) Bool.true → Or (Eq a Bool.true) (Eq b Bool.true)
  | Bool.true, _, _ => Or.inl (Eq.refl _)
  | Bool.false, _, h => Or.inr h

theorem satOut_of_B (s : Spec) : (o : Option Out) → (r : Outcome) → Eq (satOutB s o r) Bool.true → satOut s o r
  | Option.none, _, _ => True.intro
  | Option.some (Out.eq c), r, h => Outcome.eq_of_beq r (Outcome.ret c) h
  | Option.some Out.raises, _, h => h
  | Option.some (Out.post a), r, h =>
    Or.rec (motive := fun _ => satOut s (Option.some (Out.post a)) r)
      (fun h1 => Or.inl (Outcome.eq_of_beq r (Outcome.ret junk) h1)) (fun h2 => Or.inr h2)
      (or_of_bor _ _ h)

theorem satOut_self (s : Spec) : (o : Option Out) → satOut s o (selfOut o)
  | Option.none => True.intro
  | Option.some (Out.eq _) => Eq.refl _
  | Option.some Out.raises => Eq.refl _
  | Option.some (Out.post _) => Or.inl (Eq.refl _)

/-- A lookup-table witness whose default is the spec's own outcome satisfies the spec at every
input, once `allSat` (evaluated by the kernel) checks the table's entries. -/
theorem lookup_sat (s : Spec) (k : Val) :
    (t : List (Prod Val Outcome)) → Eq (allSat s t) Bool.true → Sat s k (lookup t (self s k) k)
  | List.nil, _ => satOut_self s (outcome s k)
  | List.cons (Prod.mk k' o) rest, h =>
    show satOut s (outcome s k) (cond (Val.beq k k') o (lookup rest (self s k) k)) from
    Bool.rec (motive := fun b => Eq (Val.beq k k') b →
        satOut s (outcome s k) (cond b o (lookup rest (self s k) k)))
      (fun _ => lookup_sat s k rest (eq_true_of_and_right h))
      (fun hb => Eq.ndrec (motive := fun x => satOut s (outcome s x) o)
        (satOut_of_B s (outcome s k') o (eq_true_of_and_left h)) (Eq.symm (Val.eq_of_beq k k' hb)))
      (Val.beq k k') (Eq.refl _)

/-- The spec's clause at `k` where it says "returns a value of class `c`". -/
theorem eq_of_sat {s : Spec} {k : Val} {o : Outcome} {c : Val} (h : Sat s k o)
    (hk : Eq (outcome s k) (Option.some (Out.eq c))) : Eq o (Outcome.ret c) :=
  Eq.ndrec (motive := fun x => satOut s x o) h hk

/-- The spec's clause at `k` where it says "raises". -/
theorem raises_of_sat {s : Spec} {k : Val} {o : Outcome} (h : Sat s k o)
    (hk : Eq (outcome s k) (Option.some Out.raises)) : Holds Outcome.raises o :=
  Eq.ndrec (motive := fun x => satOut s x o) h hk

/-- A returned class `c` that fails the postcondition refutes the spec's clause at `k`. -/
theorem post_refute {s : Spec} {k : Val} {o : Outcome} {a : List Val} {c : Val} (h : Sat s k o)
    (hk : Eq (outcome s k) (Option.some (Out.post a))) (ho : Eq o (Outcome.ret c))
    (hj : Eq (Val.beq c junk) Bool.false) (hp : Eq (postCheck s a c) Bool.false) : False :=
  have h2 : satOut s (Option.some (Out.post a)) o := Eq.ndrec (motive := fun x => satOut s x o) h hk
  Or.rec (motive := fun _ => False)
    (fun e => Bool.false_ne_true (Eq.trans (Eq.symm hj)
      (Eq.ndrec (motive := fun x => Eq (Outcome.beq x (Outcome.ret junk)) Bool.true)
        (Outcome.beq_refl (Outcome.ret junk)) (Eq.trans (Eq.symm e) ho))))
    (fun e => Bool.false_ne_true (Eq.trans (Eq.symm hp)
      (Eq.ndrec (motive := fun x => Eq (Outcome.returns (postCheck s a) x) Bool.true) e ho)))
    h2

/-- A lookup-table witness for specs: the table's outcomes, and the spec's own elsewhere. -/
def wit (s : Spec) (t : List (Prod Val Outcome)) (k : Val) : Outcome := lookup t (self s k) k

/-- Every entry of a search tree satisfies the spec at its own input. -/
def allSatT (s : Spec) (t : VTree) : Bool :=
  VTree.rec (motive := fun _ => Bool) Bool.true
    (fun _ k o _ ihl ihr => Bool.and (satOutB s (outcome s k) o) (Bool.and ihl ihr)) t

/-- A search-tree witness whose default is the spec's own outcome satisfies the spec at every
input, once `allSatT` (evaluated by the kernel) checks the tree's entries. -/
theorem vfind_sat (s : Spec) (k : Val) (t : VTree) :
    Eq (allSatT s t) Bool.true → Sat s k (VTree.find (self s k) k t) :=
  VTree.rec (motive := fun t => Eq (allSatT s t) Bool.true → Sat s k (VTree.find (self s k) k t))
    (fun _ => satOut_self s (outcome s k))
    (fun l k' o r ihl ihr h =>
      have hl : Sat s k (VTree.find (self s k) k l) := ihl (eq_true_of_and_left (eq_true_of_and_right h))
      have hr : Sat s k (VTree.find (self s k) k r) := ihr (eq_true_of_and_right (eq_true_of_and_right h))
      have hm : Sat s k (cond (Val.beq k k') o (self s k)) :=
        Bool.rec (motive := fun b => Eq (Val.beq k k') b → Sat s k (cond b o (self s k)))
          (fun _ => satOut_self s (outcome s k))
          (fun hb => Eq.ndrec (motive := fun x => satOut s (outcome s x) o)
            (satOut_of_B s (outcome s k') o (eq_true_of_and_left h)) (Eq.symm (Val.eq_of_beq k k' hb)))
          (Val.beq k k') (Eq.refl _)
      Bool.rec (motive := fun b => Sat s k (cond b (VTree.find (self s k) k l)
          (cond (Nat.beq (Val.order k k') 2) (VTree.find (self s k) k r) (cond (Val.beq k k') o (self s k)))))
        (Bool.rec (motive := fun c => Sat s k (cond c (VTree.find (self s k) k r) (cond (Val.beq k k') o (self s k))))
          hm hr (Nat.beq (Val.order k k') 2))
        hl (Nat.beq (Val.order k k') 0))
    t

/-- The search-tree witness for specs. -/
def vwit (s : Spec) (t : VTree) (k : Val) : Outcome := VTree.find (self s k) k t

theorem vwit_sat (s : Spec) (t : VTree) (h : Eq (allSatT s t) Bool.true) (k : Val) : Sat s k (vwit s t k) :=
  vfind_sat s k t h

theorem wit_sat (s : Spec) (t : List (Prod Val Outcome)) (h : Eq (allSat s t) Bool.true) (k : Val) :
    Sat s k (wit s t k) := lookup_sat s k t h

/-! ## Observations of a result (`speclang.compile_observation`)

An assertion that applies Python operations to the result of the function under test
(`sorted(f(x)) == [1, 2]`, `f(x)[0] == 5`) is evaluated on the result's `==`-class
representative.  The representative is not the Python value: `1`, `1.0` and `True` are one
class, a dict's entries and a set's elements are kept sorted.  The operations allowed on values
derived from the result give `==`-equal results on `==`-equal plain data, with these guards
where they would not: -/

/-- `v` unless it is a dict or a set: guards an order-revealing operation (`list()`,
iteration, `enumerate`, ...) on a value derived from the result, since the real object's
insertion or hash order is unknown. -/
def ordered (v : Val) : Option Val :=
  match v with
  | Val.dict _ => Option.none
  | Val.set _ => Option.none
  | _ => Option.some v

/-- An integer a float computes exactly: `|i| <= 2^53`. -/
def smallInt (i : Int) : Bool := Nat.ble (Int.natAbs i) 9007199254740992

/-- `v` unless it is an int beyond `2^53`: integer arithmetic on a value derived from the
result (which may be a float of that integral value) is the float's only within that range. -/
def fexact (v : Val) : Option Val :=
  match v with
  | Val.int i => cond (smallInt i) (Option.some v) Option.none
  | _ => Option.some v

def absSum (l : List Val) : Nat :=
  List.rec (motive := fun _ => Nat) 0 (fun x _ ih => match x with
    | Val.int i => Nat.add (Int.natAbs i) ih
    | _ => ih) l

/-- `sum(v, start)` where every partial sum of floats of the same values is exact (the sum of
the absolute values is at most `2^53`). -/
def sumExact (v start : Val) : Option Val :=
  bindO (iterU v) (fun l => cond (smallInt (Int.ofNat (absSum (List.cons start l)))) (sum v start) Option.none)

/-- The value predicate of an observation: its truth, `true` when it is undefined (`none`: an
implicit Python error or outside the subset), so that the clause is implied by the assertion. -/
def obsHolds (o : Option Res) : Bool :=
  match o with
  | Option.none => Bool.true
  | Option.some r => match r with
    | Res.raise _ => Bool.true
    | Res.ret v => match truth v with
      | Option.none => Bool.true
      | Option.some b => b

/-- The class of an observation `f` of a call's outcome `o` (#12, repeated observations): `ret c`
when the call returns and `f` evaluates on its class to a value of class `c`; a raise otherwise
(the call raised, `f` raised or is undefined there).  `Eq (obsOut f o) (Outcome.ret c)` says the
observed value has class `c`; two such equations with different classes refute each other by
`same_outcome` and `outcome_ne`, whatever `f` is. -/
def obsOut (f : Val → Option Res) (o : Outcome) : Outcome :=
  match o with
  | Outcome.ret v => (match f v with
    | Option.some (Res.ret w) => (match canon w with
      | Option.some c => Outcome.ret c
      | Option.none => Outcome.raise "SpecGuardUndefined")
    | _ => Outcome.raise "SpecGuardUndefined")
  | Outcome.raise e => Outcome.raise e

end Py
end SpecGuard
