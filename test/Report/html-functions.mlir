// With several functions the page has a section, a summary and a timeline
// per function (the JSON is an array; --timeline alone takes one function).
// RUN: remat-opt %s --report=%t.html -o /dev/null
// RUN: FileCheck %s < %t.html

// CHECK:     <title>remat report</title>
// CHECK:     <h2>@first</h2>
// CHECK:     <tr><th>Peak</th><td><span title="192 bytes">192 B</span> at b</td></tr>
// CHECK:     Live bytes of @first</text>
// CHECK:     <h2>@second</h2>
// CHECK:     <tr><th>Peak</th><td><span title="128 bytes">128 B</span> at c</td></tr>
// CHECK:     Live bytes of @second</text>
// CHECK-NOT: <h2>

func.func @first(%x: tensor<16xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<16xf32> {
  %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<16xf32>
  %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<16xf32>
  return %b : tensor<16xf32>
}

func.func @second(%x: tensor<16xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<16xf32> {
  %c = nn.relu %x {remat.name = "c", remat.phase = #remat.phase<forward>} : tensor<16xf32>
  return %c : tensor<16xf32>
}
