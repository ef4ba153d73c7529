// The translation unit behind the tests' shared precompiled header
// (CMakeLists.txt, occam_test_pch): the header is its only content, and
// GoogleTest's main makes it an executable like the tests.
