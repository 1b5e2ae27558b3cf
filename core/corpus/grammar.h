#pragma once
// A small bilingual grammar whose sentences carry gold relations (annotated.h): the corpus
// HeadScope trains its default model on and tests heads against. Nine English and nine
// Chinese sentence patterns (agreement across a phrase or clause, coreference, brackets and
// quotes, dates, negation, repeated names; three of them vary where the partner stands:
// grammar_variety.cpp), each noun phrase with a determiner or a 的-modifier; a few hundred
// words, sentences of 5 to 25 tokens.
// generate_sentence(lang, seed, index) is a pure function of its arguments: the same
// sentence on every platform and thread.
#include <cstdint>
#include <string>
#include <vector>

#include "core/corpus/annotated.h"

namespace hs::corpus {

// lang "en" or "zh"; hs::Error for another.
AnnotatedSentence generate_sentence(const std::string& lang, std::uint64_t seed, long long index);

// `count` sentences of `lang` ("en", "zh", or "both": English and Chinese in turn, index
// i / 2 of each), sentence i of one language being generate_sentence(lang, seed, i): what
// `headscope corpus` writes.
std::vector<AnnotatedSentence> grammar_corpus(const std::string& lang, long long count, std::uint64_t seed);

// The sentences the default model's heads are probed on (the app's Relations tab, the
// regression test, docs/DEFAULT_MODEL.md): grammar_corpus("both", 600, 99), a seed no
// training batch draws its sentences from.
std::vector<AnnotatedSentence> probe_corpus();

// Sentences of structure families the patterns above never write, in the same words
// (held_out_grammar.cpp): what a claim about a head is measured on, so that it holds on
// structures the default model never trained on (issue 39). English: agreement after a
// clause and across two attractors; a pronoun after a sentence break, after two clauses
// that each end in a noun, "it" past a name and a thing; "the very big box" as an object;
// a long quote and a quote inside brackets; two dates and a date first; negation across a
// phrase or inside a quote; the second of two joined names repeated (the training pattern of
// that shape repeats the first), either name after a noun phrase.
// Chinese: subjects with a measure word (这只猫, 两本旧的书) and in a second clause; a
// pronoun after a sentence break or two clauses, 它 past a name and a clause; a long quote
// and a quote inside brackets; two dates and a date first; negation in a quote or after a
// counted noun; the second of two joined names repeated, or either after 认识. Every token is one grammar_vocabulary() holds.
AnnotatedSentence generate_held_out_sentence(const std::string& lang, std::uint64_t seed, long long index);
// `count` of them as grammar_corpus writes its sentences (lang "en", "zh" or "both").
std::vector<AnnotatedSentence> held_out_corpus(const std::string& lang, long long count, std::uint64_t seed);
// What the default model's claims are measured on (docs/DEFAULT_MODEL.md, its test, the
// Relations tab's first choice): held_out_corpus("both", 600, 99).
std::vector<AnnotatedSentence> held_out_probe_corpus();

// Every token the grammar can write, both languages, sorted and unique.
std::vector<std::string> grammar_vocabulary();

// The grammar's names and nouns (both numbers in English) of `lang` ("en", "zh"; none for
// another), as words: a Chinese one spans several tokens, a character each.
std::vector<std::string> grammar_names(const std::string& lang);
std::vector<std::string> grammar_nouns(const std::string& lang);
// Every Chinese word of two or more characters the grammar writes (names, nouns, verbs,
// adjectives: 张伟, 老师, 认识, 漂亮), sorted and unique; label thinning's word list
// (core/tokenize/chinese_words.h) must hold them all.
std::vector<std::string> grammar_chinese_words();

}  // namespace hs::corpus
