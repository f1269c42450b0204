// SPDX-License-Identifier: BSD-3-Clause
// A Kokkos program whose kernels, regions, section, fence, deep copies and allocations are known.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>

// argv: N parallel_for launches, M parallel_reduce launches, E elements of the views a and
// b, C elements of the view c that lives while a and b do, then goes.
int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 5;
	int m = argc > 2 ? std::atoi(argv[2]) : 3;
	int e = argc > 3 ? std::atoi(argv[3]) : 1000;
	int c = argc > 4 ? std::atoi(argv[4]) : 100000;
	Kokkos::initialize(argc, argv);
	Kokkos::Tools::declareMetadata("run kind", "e2e");
	{
		Kokkos::View<double *> a("a", e);
		Kokkos::View<double *> b("b", e);
		{
			Kokkos::View<double *> tmp("c", c);
		}
		Kokkos::Profiling::pushRegion("setup");
		for (int i = 0; i < n; i++)
			Kokkos::parallel_for(
			    "fill", e, KOKKOS_LAMBDA(const int j) { a(j) = j + 1.0; });
		Kokkos::Profiling::popRegion();
		double sum = 0;
		for (int i = 0; i < m; i++)
			Kokkos::parallel_reduce(
			    "sum", e, KOKKOS_LAMBDA(const int j, double &s) { s += a(j); }, sum);
		Kokkos::parallel_scan(
		    "prefix", e, KOKKOS_LAMBDA(const int j, double &s, const bool last) {
			    s += a(j);
			    if (last)
				    b(j) = s;
		    });
		uint32_t sec;
		Kokkos::Profiling::createProfileSection("section", &sec);
		Kokkos::Profiling::startSection(sec);
		Kokkos::deep_copy(b, a);
		Kokkos::deep_copy(a, b);
		Kokkos::Profiling::stopSection(sec);
		Kokkos::Profiling::destroyProfileSection(sec);
		Kokkos::Profiling::markEvent("checkpoint");
		// Kokkos 3.4's Serial space reports no fence of its own: the program tells the
		// tools about it, as a back-end that reports them does.
		uint64_t fence;
		Kokkos::Tools::beginFence("fence", 0, &fence);
		Kokkos::fence();
		Kokkos::Tools::endFence(fence);
		std::printf("sum %.0f\n", sum);
	}
	Kokkos::finalize();
	return 0;
}
