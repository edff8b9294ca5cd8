-- || with a non-text operand is `$1 || $2::text` (textanycat,
-- anytextcat): the operand's cast to text, which for bool spells
-- true/false where its output is t/f (sidecar printed 'x' || true as xt).
SELECT id, 'x' || b, b || 'y', s || b || i2, 'x' || 1 || true FROM nums ORDER BY id;
SELECT 'x' || true, false || 'y', 'n' || NULL::bool;
SELECT concat(b, '|', i2), concat_ws(',', b, s) FROM nums ORDER BY id;
