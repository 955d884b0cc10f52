import unittest


class TestMatchers(unittest.TestCase):
    def setUp(self):
        self.value = 3

    def test_rank_zero_family(self):
        self.assertEqual(self.value, 3)
        self.assertEquals(self.value, 3)
        self.assertNotEqual(self.value, 4)
        self.assertIs(self.value, self.value)
        self.assertIsNot(self.value, None)
        self.assertIsNone(None)
        self.assertIsInstance(self.value, int)
        self.assertNotIsInstance(self.value, str)
        self.assertListEqual([1], [1])
        self.assertDictEqual({}, {})
        self.assertTupleEqual((), ())
        self.assertSetEqual(set(), set())
        self.assertSequenceEqual([], [])
        self.assertMultiLineEqual("a", "a")
        self.assertCountEqual([1, 2], [2, 1])

    def test_rank_one_family(self):
        self.assertGreater(self.value, 1)
        self.assertGreaterEqual(self.value, 3)
        self.assertLess(self.value, 5)
        self.assertLessEqual(self.value, 3)

    def test_rank_two_family(self):
        self.assertIn(3, [3])
        self.assertNotIn(4, [3])
        self.assertAlmostEqual(0.1 + 0.2, 0.3)
        self.assertNotAlmostEqual(0.1, 0.3)
        self.assertRegex("abc", "b")
        self.assertNotRegex("abc", "z")

    def test_rank_three_family(self):
        self.assertTrue(self.value)
        self.assertFalse(not self.value)
        self.assertIsNotNone(self.value)

    def test_mixed_with_plain_assert_in_source_order(self):
        self.assertTrue(self.value)
        assert self.value == 3
        self.assertIn(3, [3])

    def test_raises_is_not_an_assertion(self):
        with self.assertRaises(ValueError):
            int("x")
        self.assertRaises(KeyError, {}.__getitem__, "k")

    def test_any_receiver_counts(self):
        case = self
        case.assertEqual(1, 1)

    def helper_not_a_test(self):
        self.assertEqual(1, 1)
