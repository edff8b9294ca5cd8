-- exp, ln, log, log10 and power of numeric (non-integer exponents):
-- PostgreSQL's result scales, NULLs, negative and tiny arguments,
-- overflow and underflow, errors; integer exponents stay refused.
SELECT exp(1.5::numeric), exp(0::numeric), exp(1::numeric), exp(-1::numeric), exp(0.000001::numeric);
SELECT exp(10::numeric), exp(100::numeric), exp(-100::numeric), exp(1.234567890123456789::numeric);
SELECT exp(-5000::numeric);
SELECT exp(5999::numeric) > 0;
SELECT exp(6000::numeric) /* refused: on the overflow boundary */;
SELECT exp(NULL::numeric), exp('NaN'::numeric);
SELECT ln(2::numeric), ln(10::numeric), ln(0.5::numeric), ln(1::numeric), ln(1.0000001::numeric), ln(0.99::numeric);
SELECT ln(1e100::numeric), ln(1e-100::numeric), ln(123456789.123456789::numeric), ln(2.718281828459045::numeric);
SELECT ln(0::numeric);
SELECT ln(-1::numeric);
SELECT ln('NaN'::numeric);
SELECT log(100::numeric), log(2::numeric), log(0.001::numeric), log10(1000::numeric), log10(7::numeric);
SELECT log(2::numeric, 8::numeric), log(2::numeric, 10::numeric), log(10::numeric, 0.5::numeric), log(0.5::numeric, 0.25::numeric);
SELECT log(1::numeric, 10::numeric);
SELECT log(0::numeric, 10::numeric);
SELECT log(2::numeric, -1::numeric);
SELECT log(3.7::numeric, 1e50::numeric), log(1.0001::numeric, 2::numeric);
SELECT power(2::numeric, 0.5::numeric), 2::numeric ^ 0.5::numeric, power(4::numeric, 0.5::numeric), power(10::numeric, -0.5::numeric);
SELECT power(1.05::numeric, 10.5::numeric), power(1234.5678::numeric, 1.5::numeric), power(0.001::numeric, 0.3333::numeric);
SELECT power(2::numeric, 3.5::numeric), power(0::numeric, 0.5::numeric), power(1::numeric, 0.123::numeric);
SELECT power(-2::numeric, 0.5::numeric);
SELECT power(-2::numeric, 10000000000::numeric);
SELECT power(-1::numeric, 10000000001::numeric), power(-1::numeric, 10000000000::numeric);
SELECT power(10::numeric, 7000.5::numeric);
SELECT power(10::numeric, -7000.5::numeric);
SELECT power(2.5::numeric, 1.000000000000000000001::numeric);
SELECT power(NULL::numeric, 0.5), power(2::numeric, NULL::numeric), power('NaN'::numeric, 0.5::numeric);
SELECT d, exp(d), ln(abs(d) + 1), power(abs(d) + 1, 0.5) FROM nums WHERE d IS NOT NULL AND abs(d) < 1000;
SELECT power(2::numeric, 3::numeric);
SELECT power(2.5::numeric, 3::numeric) /* refused: an integer exponent whose result scale differs by major (numpowint.diff.sql) */;
