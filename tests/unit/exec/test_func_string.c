/*
 * test_func_string.c - string functions over UTF-8 (code point counting,
 * case mapping of the covered scripts), LIKE with ESCAPE (constant and
 * per-row patterns) and the PCRE2 regular expression functions.
 */
#include "ft.h"
#include "test.h"

TEST(length_case_reverse) {
  CHECK_STR(FTN("length", "varchar", 3, "héllo", "", "日本語"), "5|0|3");
  CHECK_STR(FT1("length", "varbinary", "héllo"), "6");
  CHECK_STR(FT1("upper", "varchar", "straße àéî ÿ αβγς жзё ǆ"), "STRAßE ÀÉÎ Ÿ ΑΒΓΣ ЖЗЁ ǆ");
  CHECK_STR(FT1("lower", "varchar", "ÀÉÎ Ÿ ΑΒΓ ЖЗЁ ĀĹ ABC"), "àéî ÿ αβγ жзё āĺ abc");
  CHECK_STR(FT1("reverse", "varchar", "héllo日"), "日olléh");
  CHECK_STR(FTN("lower", "varchar", 2, NULL, "X"), "NULL|x");
}

TEST(substr_trim_pad) {
  CHECK_STR(FTN("substr", "varchar;bigint", 5, "hello", "2", "hello", "-3", "hello", "0", "hello",
                "10", "hello", "-10"),
            "ello|llo|||");
  CHECK_STR(FTN("substring", "varchar;bigint;bigint", 4, "hello", "2", "2", "héllo", "2", "2",
                "hello", "1", "-1", "hello", "-2", "5"),
            "el|él||lo");
  CHECK_STR(FT1("trim", "varchar", " \t a b \n "), "a b");
  CHECK_STR(FT1("ltrim", "varchar", "  a  "), "a  ");
  CHECK_STR(FT1("rtrim", "varchar", "  a  "), "  a");
  CHECK_STR(FT1("trim", "varchar;varchar", "xyaxyx", "xy"), "a");
  CHECK_STR(FT1("ltrim", "varchar;varchar", "ééaé", "é"), "aé");
  CHECK_STR(
      FTN("lpad", "varchar;bigint;varchar", 3, "abc", "5", "xy", "abc", "2", "x", "é", "3", "ü"),
      "xyabc|ab|üüé");
  CHECK_STR(FT1("rpad", "varchar;bigint;varchar", "abc", "6", "xy"), "abcxyx");
  CHECK_STR(FT1("lpad", "varchar;bigint;varchar", "abc", "5", ""),
            "ERR:Padding string must not be empty");
  CHECK_STR(FT1("rpad", "varchar;bigint;varchar", "abc", "-1", "x"),
            "ERR:Target length must be in the range [0..2147483647]: -1");
}

TEST(concat_replace_position) {
  CHECK_STR(FTN("concat", "varchar;varchar;varchar", 2, "a", "b", "c", "a", NULL, "c"), "abc|NULL");
  CHECK_STR(FT1("||", "varchar;varchar", "日本", "語"), "日本語");
  CHECK_STR(FT1("replace", "varchar;varchar;varchar", "abcabc", "b", "XY"), "aXYcaXYc");
  CHECK_STR(FT1("replace", "varchar;varchar", "abcabc", "b"), "acac");
  CHECK_STR(FT1("replace", "varchar;varchar;varchar", "abc", "", "x"), "xaxbxcx");
  CHECK_STR(
      FTN("strpos", "varchar;varchar", 4, "hello", "l", "héllo", "l", "hello", "z", "hello", ""),
      "3|3|0|1");
  CHECK_STR(FT1("strpos", "varchar;varchar;bigint", "hello", "l", "2"), "4");
  CHECK_STR(FT1("strpos", "varchar;varchar;bigint", "hello", "l", "0"),
            "ERR:'instance' must be a positive or negative number.");
  CHECK_STR(FTN("strpos", "varchar;varchar;bigint", 4, "hello", "l", "-1", "hello", "l", "-2",
                "hello", "l", "-3", "héllé", "é", "-1"),
            "4|3|0|5");
  CHECK_STR(FT1("trim", "varchar", "\u3000 x\u2003"), "x");
  CHECK_STR(FT1("trim", "varchar", "\xe3\x80\x80 x\xe2\x80\x83\xc2\xa0"), "x\xe2\x80\x83\xc2\xa0");
  CHECK_STR(FT1("position", "varchar;varchar", "abcabc", "ca"), "3");
  CHECK_STR(FTN("starts_with", "varchar;varchar", 3, "hello", "he", "hello", "lo", "", ""),
            "true|false|true");
  CHECK_STR(FT1("ends_with", "varchar;varchar", "hello", "lo"), "true");
}

TEST(split_functions) {
  CHECK_STR(FTN("split", "varchar;varchar", 3, "a,b,,c", ",", "abc", ",", "", ","),
            "[a,b,,c]|[abc]|[]");
  CHECK_STR(FT1("split", "varchar;varchar;bigint", "a,b,c", ",", "2"), "[a,b,c]");
  CHECK_STR(FT1("split", "varchar;varchar", "a::b", "::"), "[a,b]");
  CHECK_STR(FT1("split", "varchar;varchar", "abc", ""),
            "ERR:The delimiter may not be the empty string");
  CHECK_STR(FTN("split", "varchar;varchar", 2, NULL, ",", "x,y", ","), "NULL|[x,y]");
  CHECK_STR(FTN("split_part", "varchar;varchar;bigint", 3, "a,b,c", ",", "2", "a,b,c", ",", "5",
                "a,b,c", ",", "3"),
            "b|NULL|c");
  CHECK_STR(FT1("split_part", "varchar;varchar;bigint", "a,b", ",", "0"),
            "ERR:Index must be greater than zero: 0");
}

TEST(chr_codepoint_hex_digest) {
  CHECK_STR(FTN("chr", "bigint", 2, "233", "26085"), "é|日");
  CHECK_STR(FT1("chr", "bigint", "55296"), "ERR:Not a valid Unicode code point: 55296");
  CHECK_STR(FT1("codepoint", "varchar", "é"), "233");
  CHECK_STR(FT1("codepoint", "varchar", "ab"),
            "ERR:Input string must be a single character string");
  CHECK_STR(FT1("to_hex", "varbinary", "abc"), "616263");
  CHECK_STR(FT1("to_utf8", "varchar", "é"), "c3a9");
  CHECK_STR(FT1("from_hex", "varchar", "6f6B"), "6f6b");
  CHECK_STR(FT1("from_hex", "varchar", "6"), "ERR:invalid input length 1 for from_hex");
  CHECK_STR(FT1("from_hex", "varchar", "zz"), "ERR:invalid hex character: z");
  CHECK_STR(FT1("md5", "varbinary", "abc"), "900150983cd24fb0d6963f7d28e17f72");
  CHECK_STR(FT1("sha256", "varbinary", "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK_STR(FT1("sha1", "varbinary", ""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

TEST(like_patterns) {
  CHECK_STR(FTN("like", "varchar;varchar", 8, "hello", "h%o", "hello", "h_llo", "hello", "%ll%",
                "hel", "hello", "", "%", "é", "_", "hello", "hello", "abcab", "%ab"),
            "true|true|true|false|true|true|true|true");
  CHECK_STR(FTN("like", "varchar;varchar", 3, "mississippi", "%iss%ppi", "mississippi", "m%s_s%i",
                "abc", "a%c%d"),
            "true|true|false");
  /* Literals and '%' only: anchored ends, leftmost literals, no overlap. */
  CHECK_STR(FTN("like", "varchar;varchar", 11, "a", "a%a", "aa", "a%a", "aXbYc", "%b%c", "abc",
                "a%%c", "special requests", "%special%requests%", "requests special",
                "%special%requests%", "xabab", "%ab%ab", "abab", "ab%ab", "aba", "ab%ab", "", "",
                "a", ""),
            "false|true|true|true|true|false|true|true|false|true|false");
  CHECK_STR(FTN("like", "varchar;varchar;varchar", 3, "a%b", "a\\%b", "\\", "axb", "a\\%b", "\\",
                "a_b", "a#_b", "#"),
            "true|false|true");
  CHECK_STR(FT1("like", "varchar;varchar;varchar", "a", "a\\", "\\"),
            "ERR:Escape character must be followed by '%', '_' or the escape character");
  CHECK_STR(FT1("like", "varchar;varchar;varchar", "a", "a", "ab"),
            "ERR:Escape string must be a single character");
  CHECK_STR(FTN("like", "varchar;varchar", 2, "a", NULL, NULL, "a"), "NULL|NULL");
  /* A constant pattern (column 1 given once) compiles once for all rows. */
  const char *k[] = {"apple", "a%e", "axe", NULL, "bee", NULL, "ae", NULL};
  CHECK_STR(ft_eval_ex("like", "varchar;varchar", 4, k, NULL, 0, 2u, NULL), "true|true|false|true");
  CHECK_STR(ft_eval_ex("like", "varchar;varchar", 4, k, (const uint32_t[]){1, 3}, 2, 2u, NULL),
            "-|true|-|true");
}

TEST(regexp_functions) {
  CHECK_STR(
      FTN("regexp_like", "varchar;varchar", 3, "abc123", "\\d+", "abc", "^b", "héllo", "^h.llo$"),
      "true|false|true");
  CHECK_STR(FT1("regexp_extract", "varchar;varchar", "abc123def456", "\\d+"), "123");
  CHECK_STR(FT1("regexp_extract", "varchar;varchar;bigint", "abc123", "([a-z]+)(\\d+)", "2"),
            "123");
  CHECK_STR(FT1("regexp_extract", "varchar;varchar", "abc", "\\d"), "NULL");
  CHECK_STR(FT1("regexp_extract", "varchar;varchar;bigint", "abc123", "([a-z]+)(\\d+)", "3"),
            "ERR:Pattern has 2 groups. Cannot access group 3");
  CHECK_STR(FT1("regexp_replace", "varchar;varchar;varchar", "abc123", "\\d", "X"), "abcXXX");
  CHECK_STR(FT1("regexp_replace", "varchar;varchar;varchar", "abc123", "([a-z]+)(\\d+)", "$2-$1"),
            "123-abc");
  CHECK_STR(FT1("regexp_replace", "varchar;varchar;varchar", "ab", "(?<x>a)", "[${x}]\\$"),
            "[a]$b");
  CHECK_STR(FT1("regexp_replace", "varchar;varchar;varchar", "abc", "x*", "-"), "-a-b-c-");
  CHECK_STR(FT1("regexp_replace", "varchar;varchar", "a1b2", "\\d"), "ab");
  CHECK_STR(FT1("regexp_replace", "varchar;varchar;varchar", "a", "a", "$5"),
            "ERR:Illegal group reference: group index is 5 but the pattern has 0 groups");
  CHECK(strncmp(FT1("regexp_like", "varchar;varchar", "a", "(a"),
                "ERR:Invalid regular expression '(a': missing closing parenthesis", 62) == 0);
  CHECK_STR(FT1("regexp_count", "varchar;varchar", "aaa", "a"), "3");
  CHECK_STR(FT1("regexp_position", "varchar;varchar", "héllo", "l"), "3");
  CHECK_STR(FT1("regexp_extract_all", "varchar;varchar", "a1b22c333", "\\d+"), "[1,22,333]");
  CHECK_STR(FT1("regexp_extract_all", "varchar;varchar;bigint", "a1b22", "([a-z])(\\d+)", "1"),
            "[a,b]");
  /* Per-row patterns. */
  CHECK_STR(FTN("regexp_like", "varchar;varchar", 3, "abc", "b", "abc", "^b", "abc", "b"),
            "true|false|true");
}

/* String outputs with gaps: unselected and NULL rows between written ones. */
TEST(string_outputs_with_selection) {
  const char *cells[] = {"alpha", "beta", NULL, "delta", "épsilon"};
  const uint32_t sel[] = {1, 3, 4};
  CHECK_STR(ft_eval_ex("upper", "varchar", 5, cells, sel, 3, 0, NULL),
            "-|BETA|-|DELTA|ÉPSILON");
  CHECK_STR(ft_eval_ex("reverse", "varchar", 5, cells, (const uint32_t[]){0, 2}, 2, 0, NULL),
            "ahpla|-|NULL|-|-");
  const char *sub[] = {"alpha", "2", "beta", "2", "gamma", "2", "delta", "2"};
  CHECK_STR(ft_eval_ex("substr", "varchar;bigint", 4, sub, (const uint32_t[]){0, 3}, 2, 0, NULL),
            "lpha|-|-|elta");
  const char *sp[] = {"a,b", ",", "c", NULL, "d,e,f", NULL};
  CHECK_STR(ft_eval_ex("split", "varchar;varchar", 3, sp, (const uint32_t[]){0, 2}, 2, 2u, NULL),
            "[a,b]|-|[d,e,f]");
  CHECK_STR(ft_eval_ex("split", "varchar;varchar", 3, sp, (const uint32_t[]){1}, 1, 2u, NULL),
            "-|[c]|-");
  /* A constant second argument broadcast over the rows. */
  const char *cc[] = {"x", "!", "y", NULL, "z", NULL};
  CHECK_STR(ft_eval_ex("||", "varchar;varchar", 3, cc, NULL, 0, 2u, NULL), "x!|y!|z!");
  CHECK_STR(ft_eval_ex("||", "varchar;varchar", 3, cc, (const uint32_t[]){2}, 1, 2u, NULL),
            "-|-|z!");
  const char *rx[] = {"a1", "\\d", "b22", NULL, "c", NULL};
  CHECK_STR(
      ft_eval_ex("regexp_replace", "varchar;varchar", 3, rx, (const uint32_t[]){1, 2}, 2, 2u, NULL),
      "-|b|c");
  CHECK_STR(ft_eval_ex("regexp_extract_all", "varchar;varchar", 3, rx, (const uint32_t[]){0, 1}, 2,
                       2u, NULL),
            "[1]|[2,2]|-");
  CHECK_STR(ft_eval_ex("cast:varchar", "bigint", 3, (const char *const[]){"1", "22", "333"},
                       (const uint32_t[]){0, 2}, 2, 0, NULL),
            "1|-|333");
  CHECK_STR(ft_eval_ex("coalesce", "varchar;varchar", 3,
                       (const char *const[]){NULL, "b", "a", "c", NULL, NULL},
                       (const uint32_t[]){0, 2}, 2, 0, NULL),
            "b|-|NULL");
}
